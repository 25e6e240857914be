-- The prefix's objects other than triggers (dropped first, by name, in capture.py).
DROP VIEW IF EXISTS ${cols_view}
---
DROP FUNCTION IF EXISTS ${trans_key}
---
DROP TABLE IF EXISTS ${items}, ${tables}, ${debug_table}, ${service_context}, ${ticks},
                     ${tick_ranges}, ${tick_holes},
                     ${cols_snapshot}, ${ddl_log}, ${log_state}, ${origin_marks}
