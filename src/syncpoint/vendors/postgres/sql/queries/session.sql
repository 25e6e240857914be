-- What check() needs to know of the connection and the database.
SELECT (SELECT rolsuper FROM pg_roles WHERE rolname = current_user),
       current_user::text,
       current_setting('server_encoding'),
       current_database()::text
