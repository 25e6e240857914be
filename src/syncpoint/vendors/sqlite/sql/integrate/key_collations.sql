-- The collation of each column of the target's unique indexes (what ON CONFLICT compares
-- in): index name, column name, collation name.
SELECT il.name, ii.name, ii.coll
FROM pragma_index_list(?) il, pragma_index_xinfo(il.name) ii
WHERE il."unique" = 1 AND il.partial = 0 AND ii.key = 1
ORDER BY il.name, ii.seqno
