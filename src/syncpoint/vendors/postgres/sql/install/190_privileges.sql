-- These run as the installer: only the installer (and superusers) may call them directly.
REVOKE EXECUTE ON FUNCTION ${schema}.${fn_make}(integer) FROM PUBLIC
---
REVOKE EXECUTE ON FUNCTION ${schema}.${fn_drop}(integer) FROM PUBLIC

---
REVOKE EXECUTE ON FUNCTION ${schema}.${fn_stop}(integer, text) FROM PUBLIC
