-- Every tombstone of this site with the local time it was written (a local delete, or the
-- apply of another site's delete).
-- ended: 1 where this site did not pass the delete of the tombstone's version on.
SELECT table_name, key, kv, deleted_at,
       CASE WHEN ended_here = version THEN 1 ELSE 0 END AS ended
  FROM ${tombstones}
