-- The rows this INSERT/UPDATE OR REPLACE removed (found by the BEFORE trigger) as DELETE
-- records, then this row's own record: one statement, in that order.
SELECT * FROM ($raw{replaced} ORDER BY p.seq)
UNION ALL
$raw{own}
