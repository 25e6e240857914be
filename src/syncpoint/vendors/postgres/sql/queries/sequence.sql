-- The queue sequence's settings and where it stands against the queue (docs/internals.md, "Capture on PostgreSQL").
SELECT s.seqcache, s.seqcycle, q.last_value, (SELECT max(repl_key) FROM ${schema}.${items})
  FROM pg_sequence s, ${schema}.${seq} q
 WHERE s.seqrelid = to_regclass(%(seq)s)
