-- Queue keys for a batch, in allocation order.
SELECT nextval($lit{seq_q}::regclass) FROM generate_series(1, %(n)s) ORDER BY 1
