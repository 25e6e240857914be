SELECT count(*) FROM $raw{staging}
