-- Whether every named key column compares byte for byte: a text or varchar column in a
-- deterministic collation (which breaks ties by the bytes). citext, character(n) (its
-- trailing spaces do not count), a domain or a nondeterministic collation may hold two
-- texts equal.
SELECT count(*) = cardinality(%(columns)s::text[])
  FROM pg_attribute a JOIN pg_collation c ON c.oid = a.attcollation
 WHERE a.attrelid = %(target)s::regclass AND a.attname = ANY(%(columns)s::text[])
   AND a.atttypid IN ('text'::regtype, 'varchar'::regtype) AND c.collisdeterministic
