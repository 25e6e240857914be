-- A transport table's copy at an integrate location, made when it is missing.
CREATE TABLE $raw{table} ($raw{definitions})
