-- A round's typed staging, after the apply committed (or a round that staged again as JSON
-- text, or an earlier attempt's).
DROP TABLE IF EXISTS $raw{staging}
