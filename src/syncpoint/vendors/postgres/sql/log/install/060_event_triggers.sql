-- As with trigger capture: database-wide, one pair per prefix, ENABLE ALWAYS; a superuser
-- creates them (install leaves this file out otherwise: DDL then comes from the decoded
-- relation messages, see log/capture.py).
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
