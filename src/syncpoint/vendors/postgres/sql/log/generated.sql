SELECT attname::text FROM pg_attribute
 WHERE attrelid = %(relid)s::oid AND attgenerated <> '' AND NOT attisdropped
