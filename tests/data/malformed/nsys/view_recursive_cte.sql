-- The kernel table is a VIEW over an endless recursive query.
CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT);
CREATE VIEW CUPTI_ACTIVITY_KIND_KERNEL AS
  WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r)
  SELECT n AS start, n + 1 AS end, 0 AS deviceId, 7 AS streamId, n AS correlationId, 'k' AS demangledName FROM r;
