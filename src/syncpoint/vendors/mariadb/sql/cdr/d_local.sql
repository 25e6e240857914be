-- The local row of each incoming key: its key version and versions.
UPDATE ${d} d JOIN $raw{target} t ON $raw{match} SET $raw{sets}
---
UPDATE ${d} d SET d.sp_k = $raw{key_json}
