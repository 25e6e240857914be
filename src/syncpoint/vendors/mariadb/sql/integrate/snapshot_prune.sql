-- The target rows of a snapshot chunk's range whose key the chunk did not copy: the source
-- had deleted them when the chunk was read (docs/internals.md, "Snapshot: the hand-over").
-- The chunk's keys are in ${spare} (spare_keys.sql: the key columns' own types and
-- collations, so keys compare as the upsert's unique index compares them).
DELETE t FROM $raw{target} t
 WHERE ($raw{range})
   AND NOT EXISTS (SELECT 1 FROM ${spare} u WHERE $raw{spare})
---
DROP TEMPORARY TABLE ${spare}
