-- A real kernel table, but StringIds is a view that computes 200 MB strings.
CREATE VIEW StringIds AS SELECT 1 AS id, printf('%.*c', 200000000, 'x') AS value;
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER, streamId INTEGER, correlationId INTEGER, demangledName INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1, 2, 0, 7, 1, 1);
