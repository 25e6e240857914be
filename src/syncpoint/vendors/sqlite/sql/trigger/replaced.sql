-- Rows this INSERT/UPDATE OR REPLACE removed (found by the BEFORE trigger) become DELETE
-- records ahead of this row's own record.
$raw{record};
DELETE FROM ${pending} WHERE tablename = $lit{table};
