PRAGMA busy_timeout = $raw{ms}
