UPDATE ${tables} SET status = ?, reason = ?, trigger_name = ? WHERE tablename = ?
