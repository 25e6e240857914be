-- A fragment of cdr add's triggers: an update stamps the version of a group whose columns changed, keeps the others.
$raw{version} = CASE WHEN $raw{changed} THEN $raw{now} ELSE OLD.$raw{version} END
