-- A staging table made logged becomes unlogged (once; it holds no row between rounds).
ALTER TABLE ${staging} SET UNLOGGED
