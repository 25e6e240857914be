-- The deleted rows of the window's keys (d_tombstone), converted in Python.
SELECT rowid, sp_tr FROM ${d} WHERE sp_tr IS NOT NULL
