-- Columns of a unique index (the primary key's too) compared in a collation other than
-- BINARY (NOCASE: 'abc' = 'ABC'; RTRIM: 'a' = 'a '). Column name and why.
SELECT DISTINCT ix.name, 'in collation ' || ix.coll
FROM pragma_index_list(?) il, pragma_index_xinfo(il.name) ix
WHERE il."unique" = 1 AND ix."key" = 1 AND ix.name IS NOT NULL AND ix.coll <> 'BINARY'
