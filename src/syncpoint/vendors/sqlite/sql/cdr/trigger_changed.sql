-- A fragment of cdr add's triggers: a column of a group changed in this update.
NEW.$raw{column} IS NOT OLD.$raw{column}
