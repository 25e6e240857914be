-- One key column's value in a change record's JSON (any key name; see integrate.py).
(SELECT value FROM json_each($raw{source}) WHERE key = $raw{keyname})
