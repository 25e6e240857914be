-- Without DDL event triggers, at each tick (install/045_fn_log_check.sql).
SELECT ${schema}.${fn_log_check}()
