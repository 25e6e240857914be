-- The key version of this site's row of each of some keys, the key as its tombstones write it.
SELECT $raw{key}, $raw{kv} FROM $raw{target} t WHERE $raw{keys}
