-- DDL found by polling (install/175_fn_poll_ddl.sql): one row per event written.
SELECT o_id, o_action, o_schema, o_table, o_version, o_key, o_old_schema, o_old_table
  FROM ${schema}.${fn_poll}()
