-- The deleted row's versions (sp_l<j>), decided against as a row's (decide_upsert).
UPDATE ${d} AS d SET $raw{versions} WHERE d.sp_tr IS NOT NULL
