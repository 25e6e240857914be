-- A fragment of cdr add's triggers: a group without columns keeps its version.
NEW.$raw{version} := OLD.$raw{version};
