-- A fragment of cdr add's triggers: a column of a group changed in this update.
NEW.$raw{column} IS DISTINCT FROM OLD.$raw{column}
