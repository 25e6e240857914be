-- A child row a cascade deleted at the source, by its key.
DELETE FROM $raw{target} WHERE $raw{match}
