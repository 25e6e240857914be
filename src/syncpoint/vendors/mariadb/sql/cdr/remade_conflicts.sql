-- The conflicts of one column group of a deleted row made again (a fragment of
-- apply_upsert): the group changed at both sites since the version the change was made
-- from; the local row is the deleted one.
SELECT %(table)s, d.sp_k, $raw{group}, d.sp_tr, $raw{local}, d.sp_c, $raw{remote},
       %(rule)s, CASE WHEN $raw{taken} = 1 THEN 'remote' ELSE 'local' END
  FROM ${d} d
 WHERE $raw{both}
