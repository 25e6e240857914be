-- Event triggers are database-wide; each prefix has its own pair, whose functions only
-- act on this prefix's watched tables. ENABLE ALWAYS: also under
-- session_replication_role = replica. Creating them needs a superuser.
DROP EVENT TRIGGER IF EXISTS ${et_ddl}
---
CREATE EVENT TRIGGER ${et_ddl} ON ddl_command_end
    WHEN TAG IN ('ALTER TABLE', 'CREATE TABLE', 'CREATE TABLE AS', 'SELECT INTO', 'ALTER TYPE')
    EXECUTE FUNCTION ${schema}.${fn_on_ddl}()
---
ALTER EVENT TRIGGER ${et_ddl} ENABLE ALWAYS
---
DROP EVENT TRIGGER IF EXISTS ${et_drop}
---
CREATE EVENT TRIGGER ${et_drop} ON sql_drop
    EXECUTE FUNCTION ${schema}.${fn_on_drop}()
---
ALTER EVENT TRIGGER ${et_drop} ENABLE ALWAYS
---
DROP EVENT TRIGGER IF EXISTS ${et_start}
---
CREATE EVENT TRIGGER ${et_start} ON ddl_command_start
    WHEN TAG IN ('DROP TABLE', 'DROP SCHEMA')
    EXECUTE FUNCTION ${schema}.${fn_on_drop_start}()
---
ALTER EVENT TRIGGER ${et_start} ENABLE ALWAYS
