-- Unique indexes of a target table that ON CONFLICT can use (no predicate): index name and
-- column names in index order (an expression's column name is NULL: the caller skips it).
-- The rowid key (INTEGER PRIMARY KEY) is no index here; the caller adds the primary key.
SELECT il.name, ii.name
FROM pragma_index_list(?) il, pragma_index_info(il.name) ii
WHERE il."unique" = 1 AND il.partial = 0
ORDER BY il.name, ii.seqno
