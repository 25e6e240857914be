-- Without DDL event triggers, at each tick (install/045_fn_log_check.sql).
SELECT ${schema}.${fn_log_check}()
---
-- Whether this install has the check (an install made by an earlier version has not,
-- until install runs again).
SELECT to_regprocedure($lit{fn_log_check_q} || '()') IS NOT NULL
