-- Keys the target's key holds as one that the source holds apart (a NOCASE or RTRIM key
-- fed by a byte-for-byte source): a window's upsert equal, in the key index's collations,
-- to an existing row of another text, unless the same window deletes that row's text (then
-- it is one source row whose key moved between equal texts); or two of the window's
-- upserts equal there but not as text. ON CONFLICT would merge them into one row. The
-- upserts' keys are in temp.${spare} (spare_keys.sql), the deletes' in temp.${tmp}.
SELECT * FROM (
    SELECT $raw{old_text}, $raw{new_text} FROM $raw{target} t JOIN temp.${spare} u ON $raw{spare}
     WHERE NOT ($raw{same})
       AND NOT EXISTS (SELECT 1 FROM temp.${tmp} d WHERE $raw{deleted})
     LIMIT 1)
UNION ALL
SELECT * FROM (
    SELECT min($raw{new_text}), max($raw{new_text}) FROM temp.${spare} u GROUP BY $raw{group}
    HAVING count(DISTINCT $raw{texts}) > 1
     LIMIT 1)
