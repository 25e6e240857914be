"""MariaDB 10.6+ and MySQL 8 (PyMySQL)."""
