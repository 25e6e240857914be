-- Queue keys for a batch, in allocation order, as one array (one value to read, not a row
-- a key).
SELECT array_agg(k ORDER BY k)
  FROM (SELECT nextval($lit{seq_q}::regclass) AS k FROM generate_series(1, %(n)s)) AS s
