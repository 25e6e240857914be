-- A fragment of cdr add's triggers: an insert stamps every group's version (SET of the stamping UPDATE).
$raw{version} = $raw{now}
