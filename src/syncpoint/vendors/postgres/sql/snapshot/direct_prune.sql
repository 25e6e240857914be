-- The target rows of a chunk's range whose key the chunk did not copy: the source had
-- deleted them when the chunk was read (docs/internals.md, "Snapshot: the hand-over").
-- An anti-join to the chunk's typed rows, hashed: the staging has no index.
DELETE FROM $raw{target} t
 WHERE ($raw{range})
   AND NOT EXISTS (SELECT 1 FROM ${staging} s WHERE s.${attempt} = %s AND $raw{match})
