-- A fragment of cdr add's triggers: the version a local write stamps: the time of the write (SYSDATE: not the statement's
-- start, nor a SET timestamp) in UTC with microseconds, and the location.
CONCAT(DATE_FORMAT(UTC_TIMESTAMP(6) + INTERVAL TIMESTAMPDIFF(MICROSECOND, NOW(6), SYSDATE(6)) MICROSECOND, '%Y-%m-%dT%H:%i:%s.%f'), '|', $lit{location})
