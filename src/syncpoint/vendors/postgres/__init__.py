"""PostgreSQL 15+ (psycopg 3)."""
