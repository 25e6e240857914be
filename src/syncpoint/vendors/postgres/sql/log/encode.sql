-- Decoded rows' values (text, one JSON array a row) cast back to their columns' types and
-- written as JSON by the trigger capture's projection (install/110_fn_make_capture.sql),
-- under the same settings: the same content, character for character.
SELECT (SELECT row_to_json(sp_p)::text FROM (SELECT $raw{projection}) AS sp_p)
  FROM (SELECT v.n AS sp_n, $raw{casts}
          FROM unnest(%(rows)b::json[]) WITH ORDINALITY AS v(a, n)) AS s
 ORDER BY s.sp_n
