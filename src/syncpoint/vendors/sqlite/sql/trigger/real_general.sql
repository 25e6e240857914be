-- A finite REAL outside the fast ranges as json_array(m, k), value = m * 2^-k exactly: a
-- decimal exponent estimate from printf puts log2(|v| * 2^k) within [55.5, 59.8], inside
-- [52, 63), so the product by two exact powers of two is an exact integer.
(SELECT json_array($raw{sign} * CAST(abs($raw{v}) * p1.v * p2.v AS INTEGER), e.k)
   FROM (SELECT 56 - CAST(round(CAST(substr(s.s, instr(s.s, 'e') + 1) AS INTEGER)
                                * 3.321928094887362) AS INTEGER) AS k
           FROM (SELECT printf('%.3e', $raw{v}) AS s LIMIT 1) AS s) AS e
   JOIN ${pow2} AS p1 ON p1.k = e.k / 2
   JOIN ${pow2} AS p2 ON p2.k = e.k - e.k / 2)
