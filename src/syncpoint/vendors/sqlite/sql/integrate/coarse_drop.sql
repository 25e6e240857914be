DROP TABLE IF EXISTS temp.${tmp}
---
DROP TABLE IF EXISTS temp.${spare}
