-- Two kernels of (almost) 4e18 ns each: each is in range, their sum is not.
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER, streamId INTEGER, correlationId INTEGER, demangledName TEXT);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (0, 3999999999999999999, 0, 7, 1, 'a'), (0, 3999999999999999999, 0, 7, 2, 'b');
