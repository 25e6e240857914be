-- The conflicts of one column group (a fragment of apply_upsert and apply_delete): among
-- the rows picked, the group changed at both sites since the version the change was made
-- from. The local row is the target's, or, for a deleted row made again (no row at the
-- target), the deleted one.
SELECT %(table)s, d.sp_k, $raw{group}, $raw{local_row}, $raw{local}, d.sp_c, $raw{remote},
       %(rule)s, CASE WHEN $raw{taken} = 1 THEN 'remote' ELSE 'local' END
  FROM ${d} d LEFT JOIN $raw{target} t ON $raw{match}
 WHERE $raw{both}
