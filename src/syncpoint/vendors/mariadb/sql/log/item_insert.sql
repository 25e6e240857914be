-- The head of the drain's queue INSERT: drain.py adds the rows' VALUES lists after it,
-- many rows a statement, each value a literal made by the driver's escaping.
INSERT INTO ${items} (trans_key, dbid, tablename, db_catalog, db_schema, guid, db_action,
                      content, oldcontent, version, captured_at)
VALUES
