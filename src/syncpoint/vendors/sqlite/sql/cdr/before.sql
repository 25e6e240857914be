-- One group's members of a read's befores (a fragment): the versions the window's changes of
-- that group were made from ("*": an insert made the row), and the versions they made.
$raw{name} || '[' || coalesce(group_concat(
    CASE WHEN g.db_action IN ('INSERT', 'DELETE')
           OR json_extract(g.oldcontent, $lit{column}) IS NOT json_extract(g.content, $lit{column})
         THEN json_quote(coalesce(json_extract(g.oldcontent, $lit{column}), '*')) END, ',') OVER w,
    '') || '],' ||
$raw{made} || '[' || coalesce(group_concat(
    CASE WHEN g.db_action = 'INSERT'
           OR (g.db_action = 'UPDATE' AND json_extract(g.oldcontent, $lit{column})
                                          IS NOT json_extract(g.content, $lit{column}))
         THEN json_quote(json_extract(g.content, $lit{column})) END, ',') OVER w,
    '') || ']'
