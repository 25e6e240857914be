-- One control table of the prefix (uninstall); its indexes go with it.
DROP TABLE IF EXISTS $raw{target}
