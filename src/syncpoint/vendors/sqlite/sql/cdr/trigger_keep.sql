-- A fragment of cdr add's triggers: a group without columns keeps its version.
$raw{version} = OLD.$raw{version}
