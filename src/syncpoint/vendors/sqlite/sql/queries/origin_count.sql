SELECT count(*) FROM ${origin}
