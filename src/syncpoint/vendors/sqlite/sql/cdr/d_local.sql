-- The local row of each incoming key: its key version and versions.
UPDATE ${d} AS d SET $raw{sets} FROM $raw{target} AS t WHERE $raw{match}
---
UPDATE ${d} AS d SET sp_k = $raw{key_json}
