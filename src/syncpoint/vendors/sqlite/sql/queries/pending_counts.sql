SELECT tablename, count(*) FROM ${items} GROUP BY tablename
