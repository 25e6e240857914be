-- Keys the target's key holds as one that the source holds apart (a case- or
-- accent-insensitive or PAD SPACE collation fed by a byte-for-byte source): a window's
-- upsert equal to an existing row of another text, unless the same window (any origin's
-- part of it) deletes that
-- row's text (then it is one source row whose key moved between equal texts); or two of
-- the window's upserts equal here but not as text. ON DUPLICATE KEY UPDATE would merge
-- them into one row. ${spare} holds the upsert keys in the key columns' own collations
-- (spare_keys.sql); the texts are compared as utf8mb4_nopad_bin, byte for byte with
-- trailing spaces, whatever the column's character set.
(SELECT $raw{old_text}, $raw{new_text} FROM $raw{target} t JOIN ${spare} u ON $raw{spare}
  WHERE NOT ($raw{same})
    AND NOT EXISTS (SELECT 1 FROM ${staging} s
                     WHERE s.round_id = %(round_id)s AND s.tbl BETWEEN %(spare_lo)s AND %(spare_hi)s
                       AND s.action = 'D'
                       AND $raw{deleted})
  LIMIT 1)
UNION ALL
(SELECT MIN($raw{new_exact}), MAX($raw{new_exact}) FROM ${spare} u GROUP BY $raw{columns}
  HAVING COUNT(DISTINCT $raw{bytes}) > 1
  LIMIT 1)
