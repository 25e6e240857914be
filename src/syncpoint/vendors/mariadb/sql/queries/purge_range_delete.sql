-- By primary key, as purge_delete.sql.
DELETE r FROM ($raw{keys}) k STRAIGHT_JOIN ${tick_ranges} r ON r.lo = k.rk AND r.stamped = k.st
