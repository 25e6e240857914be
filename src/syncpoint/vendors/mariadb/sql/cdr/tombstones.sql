-- Every tombstone of this site with the UTC time it was written (a local delete, or the
-- apply of another site's delete).
SELECT table_name, `key`, kv, deleted_at FROM ${tombstones}
