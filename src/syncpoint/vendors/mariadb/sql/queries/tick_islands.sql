-- The runs of consecutive keys among those given: lowest, highest, and how many are not
-- stamped. Keys in one run are all committed and visible in the snapshot, so a range over
-- a run holds no key of an open transaction.
SELECT MIN(k), MAX(k), SUM(n) FROM (
  SELECT k, n, k - ROW_NUMBER() OVER (ORDER BY k) AS g FROM ($raw{keys}) u
) s GROUP BY g ORDER BY 1
