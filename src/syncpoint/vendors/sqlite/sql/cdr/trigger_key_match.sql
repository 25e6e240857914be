-- A fragment of cdr add's triggers: the stamping UPDATE's row: one key column.
$raw{column} IS NEW.$raw{column}
