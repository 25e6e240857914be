-- The deleted rows put back, every column as this site deleted it (bookkeeping included),
-- for the incoming deletes to take away as rows (CdrSite.undelete). Replicated writes: the
-- triggers keep the versions.
INSERT INTO $raw{target} ($raw{columns})
SELECT $raw{values} FROM ${d} d WHERE $raw{restored} ORDER BY d.sp_rk
