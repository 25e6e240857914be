DELETE FROM $raw{target} WHERE $raw{match}
