-- A fragment of cdr add's triggers: an insert stamps every group's version.
SET NEW.$raw{version} = v;
