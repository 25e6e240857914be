-- The operations staged for a window: all, those that are a change record each (sub -1 is
-- the second operation of a key move), those without a key.
SELECT count(*), count(*) FILTER (WHERE sp_sub >= 0), count(*) FILTER (WHERE sp_key IS NULL)
  FROM $raw{staging}
