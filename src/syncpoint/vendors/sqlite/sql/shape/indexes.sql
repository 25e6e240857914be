-- Indexes of a table other than its primary key: name, unique, partial, and per column in
-- order its name (NULL for an expression).
SELECT l.name, l."unique", l.partial, i.name
  FROM pragma_index_list(?) l, pragma_index_info(l.name) i
 WHERE l.origin <> 'pk'
 ORDER BY l.name, i.seqno
