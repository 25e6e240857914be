-- A fragment of cdr add's triggers: an insert stamps every group's version.
NEW.$raw{version} := v;
