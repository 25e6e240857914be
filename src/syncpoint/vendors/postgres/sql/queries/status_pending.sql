SELECT db_schema, tablename, count(*) FROM ${schema}.${items} GROUP BY 1, 2
