-- Exact powers of two (filled from Python as bound REAL parameters) for the triggers' exact
-- REAL encoding of very large and very small values (see encode.py).
CREATE TABLE ${pow2} (
    k INTEGER PRIMARY KEY,
    v REAL NOT NULL
)
