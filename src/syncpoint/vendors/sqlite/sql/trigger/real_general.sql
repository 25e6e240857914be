(SELECT json_array($raw{sign} * CAST(abs($raw{v}) * s.v1 * s.v2 AS INTEGER), s.k)
   FROM ${pow2} AS s WHERE s.lo <= abs($raw{v}) ORDER BY s.lo DESC LIMIT 1)
