-- The JSON content of one decoded row (a fragment of insert_rows.sql): its values cast back
-- to the columns' types ($raw{casts}), then the trigger capture's projection of them.
(SELECT row_to_json(sp_p)::text FROM (SELECT $raw{projection} FROM (SELECT $raw{casts}) AS s) AS sp_p)
