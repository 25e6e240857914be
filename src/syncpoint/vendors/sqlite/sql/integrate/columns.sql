-- Columns of a target table in order: name, declared type, nullable, key position, and
-- whether a unique index holds the column and every one compares it in BINARY (byte for
-- byte; what ON CONFLICT compares in): with a TEXT affinity, its equality is its text's
-- (integratebase.key_is_exact).
SELECT ti.name, ti.type, ti."notnull" = 0, ti.pk,
       EXISTS (SELECT 1 FROM pragma_index_list(?1) il, pragma_index_xinfo(il.name) ix
                WHERE il."unique" = 1 AND ix."key" = 1 AND ix.name = ti.name)
       AND NOT EXISTS (SELECT 1 FROM pragma_index_list(?1) il, pragma_index_xinfo(il.name) ix
                        WHERE il."unique" = 1 AND ix."key" = 1 AND ix.name = ti.name
                          AND upper(ix.coll) <> 'BINARY')
FROM pragma_table_info(?1) ti ORDER BY ti.cid
