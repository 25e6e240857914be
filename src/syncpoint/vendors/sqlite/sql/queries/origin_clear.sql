DELETE FROM ${origin}
