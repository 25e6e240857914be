DELETE FROM ${tombstones} WHERE table_name = :table AND key = :key AND kv = :kv
