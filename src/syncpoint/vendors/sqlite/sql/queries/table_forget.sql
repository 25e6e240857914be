DELETE FROM ${tables} WHERE tablename = ?
