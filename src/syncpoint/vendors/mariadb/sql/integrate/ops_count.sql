-- The operations a round's tasks staged, per window: all of them, those that are a change
-- record each (sub -1 is the second operation of a key move), those without a key.
SELECT tbl, count(*), SUM(sp_sub >= 0), SUM(sp_key IS NULL)
  FROM ${staging} WHERE round_id = %s GROUP BY tbl
