INSERT INTO ${cols_snapshot} (schemaname, tablename, ordinal, colname, coltype, nullable, pk)
VALUES (%(schema)s, %(table)s, %(ordinal)s, %(colname)s, %(coltype)s, %(nullable)s, %(pk)s)
