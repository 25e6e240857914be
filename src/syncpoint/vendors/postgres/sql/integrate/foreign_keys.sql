-- (child, parent) pairs among tables, as regclass text.
SELECT c.conrelid::regclass::text, c.confrelid::regclass::text
FROM pg_constraint c WHERE c.contype = 'f' AND c.conrelid = ANY(%s::regclass[])
