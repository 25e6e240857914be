DELETE t FROM $raw{target} t JOIN ${tmp} d ON $raw{match}
---
DROP TEMPORARY TABLE ${tmp}
