-- A fragment of cdr add's triggers: a column of a group changed in this update.
NOT (NEW.$raw{column} <=> OLD.$raw{column})
