DELETE FROM ${items} WHERE repl_key IN ($raw{keys})
---
DELETE FROM ${debug_table} WHERE repl_key IN ($raw{keys})
