-- 200 MB names computed by a view.
CREATE VIEW CUPTI_ACTIVITY_KIND_KERNEL AS
  SELECT 1 AS start, 2 AS end, 0 AS deviceId, 0 AS streamId, 0 AS correlationId, printf('%.*c', 200000000, 'x') AS demangledName;
