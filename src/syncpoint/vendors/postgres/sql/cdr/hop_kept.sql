-- The stamp of the oldest move kept of one capture location.
SELECT cap_begin FROM ${hops} WHERE capture_loc = %(loc)s
 ORDER BY cap_begin DESC LIMIT 1 OFFSET %(keep)s
