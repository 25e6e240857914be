-- The staged rows of one window whose changes were first made at one location, set apart
-- under a window number of their own (a row without an origin is the read location's).
UPDATE ${staging} SET tbl = %s
 WHERE round_id = %s AND tbl = %s AND COALESCE(origin, %s) = %s
