-- Keys the target's key holds as one that the source holds apart (citext or a
-- nondeterministic collation fed by a case-sensitive source): a window's upsert equal to
-- an existing row of another text, unless the same window (any origin's part) deletes
-- that row's text (then
-- it is one source row whose key moved between equal texts); or two of the window's
-- upserts equal here but not as text. ON CONFLICT would merge them into one row. The
-- staged keys are cast to the key columns' types, so = is the target's equality; ::text
-- COLLATE "C" compares the texts byte for byte.
WITH u AS MATERIALIZED (
    SELECT $raw{values} FROM (SELECT st.content::jsonb AS c FROM ${staging} st
     WHERE st.round_id = %(round_id)s AND st.tbl BETWEEN %(spare_lo)s AND %(spare_hi)s AND st.action = 'U') s
), d AS MATERIALIZED (
    SELECT $raw{values} FROM (SELECT st.content::jsonb AS c FROM ${staging} st
     WHERE st.round_id = %(round_id)s AND st.tbl BETWEEN %(spare_lo)s AND %(spare_hi)s AND st.action = 'D') s
)
(SELECT $raw{old_text}, $raw{new_text} FROM $raw{target} t JOIN u ON $raw{spare}
  WHERE ($raw{differs}) AND NOT EXISTS (SELECT 1 FROM d WHERE $raw{deleted})
  LIMIT 1)
UNION ALL
(SELECT min($raw{new_text}), max($raw{new_text}) FROM u GROUP BY $raw{group}
  HAVING count(DISTINCT ($raw{texts})) > 1
  LIMIT 1)
