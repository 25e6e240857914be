SELECT DISTINCT "table" FROM pragma_foreign_key_list(?)
