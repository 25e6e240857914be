-- One group's members of a read's befores (a fragment): the versions the window's changes of
-- that group were made from ("*": an insert made the row), and the versions they made.
$raw{name} || '[' || coalesce(string_agg(
    CASE WHEN g.db_action IN ('INSERT', 'DELETE')
           OR (g.oldcontent::json ->> $lit{column}) IS DISTINCT FROM (g.content::json ->> $lit{column})
         THEN to_json(coalesce(g.oldcontent::json ->> $lit{column}, '*'))::text END, ',') OVER w,
    '') || '],' ||
$raw{made} || '[' || coalesce(string_agg(
    CASE WHEN g.db_action = 'INSERT'
           OR (g.db_action = 'UPDATE' AND (g.oldcontent::json ->> $lit{column})
                                          IS DISTINCT FROM (g.content::json ->> $lit{column}))
         THEN to_json(g.content::json ->> $lit{column})::text END, ',') OVER w,
    '') || ']'
