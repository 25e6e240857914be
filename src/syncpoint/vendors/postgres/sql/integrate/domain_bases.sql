-- The base type, with its modifier, of each domain among the type names given (%s, as
-- format_type writes them): the apply converts a domain's value as its base type's and
-- lets the assignment to the column check the domain (an explicit cast to a domain over
-- varchar(5) cuts a value to 5 characters without a word).
SELECT d.name, format_type(t.typbasetype, t.typtypmod)
  FROM unnest(%s::text[]) AS d(name)
  JOIN pg_catalog.pg_type t ON t.oid = to_regtype(d.name)
 WHERE t.typtype = 'd'
