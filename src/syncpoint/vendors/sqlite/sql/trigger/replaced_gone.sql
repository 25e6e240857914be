-- The conflicting row is gone (or is the new row itself, which took its rowid).
($raw{same_rowid} NOT EXISTS (SELECT 1 FROM ${table} AS x WHERE x.$raw{rowid} = p.rid))
