-- One group's members of a read's befores (a fragment): the versions the window's changes of
-- that group were made from ("*": an insert made the row), and the versions they made.
CONCAT($raw{name}, '[', COALESCE(GROUP_CONCAT(
    CASE WHEN g.db_action IN ('INSERT', 'DELETE')
           OR NOT (JSON_VALUE(g.oldcontent, $lit{column}) <=> JSON_VALUE(g.content, $lit{column}))
         THEN JSON_QUOTE(COALESCE(JSON_VALUE(g.oldcontent, $lit{column}), '*')) END
    SEPARATOR ','), ''), '],',
       $raw{made}, '[', COALESCE(GROUP_CONCAT(
    CASE WHEN g.db_action = 'INSERT'
           OR (g.db_action = 'UPDATE' AND NOT (JSON_VALUE(g.oldcontent, $lit{column})
                                              <=> JSON_VALUE(g.content, $lit{column})))
         THEN JSON_QUOTE(JSON_VALUE(g.content, $lit{column})) END
    SEPARATOR ','), ''), ']')
