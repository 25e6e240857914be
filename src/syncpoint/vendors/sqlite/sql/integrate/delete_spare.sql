-- A net delete of a window whose key can be equal at the target while its text differs (a
-- NOCASE or RTRIM collation): a target row equal to a key the window upserts is the row the
-- upsert wrote, the last change of that key's class, and stays. The comparison takes the
-- target column's collation (SQLite's rule: the left operand's column).
DELETE FROM $raw{target} WHERE $raw{match}
   AND NOT EXISTS (SELECT 1 FROM temp.${spare} u WHERE $raw{spare})
