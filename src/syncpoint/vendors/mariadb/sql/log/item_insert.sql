-- The head of the drain's queue INSERT: drain.py adds the rows' VALUES lists after it,
-- many rows a statement, each value a literal made by the driver's escaping. The records
-- are written already in the next tick (context): see drain.py.
INSERT INTO ${items} (context, trans_key, dbid, tablename, db_catalog, db_schema, guid,
                      db_action, content, oldcontent, version, captured_at)
VALUES
