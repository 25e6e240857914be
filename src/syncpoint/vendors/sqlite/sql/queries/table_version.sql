UPDATE ${tables} SET version = ? WHERE tablename = ?
