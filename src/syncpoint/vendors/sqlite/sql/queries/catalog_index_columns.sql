-- key columns of an index; cid -2 is an expression, -1 the rowid.
SELECT cid, name, coll FROM pragma_index_xinfo(?, 'main') WHERE key = 1 ORDER BY seqno
