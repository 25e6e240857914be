-- One deleted row's values (sp_o<i>).
UPDATE ${d} SET $raw{sets} WHERE rowid = ?
