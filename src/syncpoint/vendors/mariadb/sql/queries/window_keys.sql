-- Records of one table written after a repl_key (the rows a refresh captures again).
SELECT content, oldcontent FROM ${items} FORCE INDEX (PRIMARY)
 WHERE tablename = %(table)s AND repl_key > %(after)s AND db_action IN ('INSERT', 'UPDATE', 'DELETE')
 ORDER BY repl_key
