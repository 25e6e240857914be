DELETE FROM ${cols_snapshot} WHERE tablename = ?
