-- The columns of each watched table as the catalog has them now (generated columns are not
-- listed by pragma_table_info and are not captured).
CREATE VIEW ${cols_view} AS
SELECT t.tablename AS tablename, c.cid AS cid, c.name AS name, c.type AS type,
       c."notnull" AS "notnull", c.pk AS pk
  FROM ${tables} AS t
  JOIN pragma_table_info(t.tablename, 'main') AS c
