-- The conflicts of one column group (a fragment of apply_upsert): the group changed at
-- both sites since the version the change was made from.
SELECT :table, d.sp_k, $raw{group}, $raw{local_row}, $raw{local}, d.sp_c, $raw{remote},
       :rule, CASE WHEN $raw{taken} = 1 THEN 'remote' ELSE 'local' END
  FROM ${d} AS d JOIN $raw{target} AS t ON $raw{match}
 WHERE d.sp_hl = 1 AND $raw{rkv} = d.sp_lkv AND $raw{both}
