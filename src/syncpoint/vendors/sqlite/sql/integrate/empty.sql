DELETE FROM $raw{target}
