-- A view whose query runs forever without producing a row.
CREATE VIEW CUPTI_ACTIVITY_KIND_KERNEL AS
  WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r)
  SELECT n AS start, n AS end, 0 AS deviceId, 0 AS streamId, 0 AS correlationId, 'k' AS demangledName FROM r WHERE n < 0;
