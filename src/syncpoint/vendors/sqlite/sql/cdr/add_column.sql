ALTER TABLE $raw{target} $raw{add}
