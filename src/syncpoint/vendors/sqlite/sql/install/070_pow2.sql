-- Exact scale factors for the triggers' exact REAL encoding (see encode.py): for each binary
-- exponent e, lo = 2^e and v1 * v2 = 2^k with k = 52 - e, so |x| * v1 * v2 is an integer in
-- [2^52, 2^53) for |x| in [2^e, 2^(e+1)). Filled from Python as bound REAL parameters.
CREATE TABLE ${pow2} (
    lo REAL PRIMARY KEY,
    k  INTEGER NOT NULL,
    v1 REAL NOT NULL,
    v2 REAL NOT NULL
) WITHOUT ROWID
