-- What validate needs to know for log capture.
SELECT current_setting('wal_level'),
       current_setting('max_replication_slots')::integer,
       (SELECT count(*) FROM pg_replication_slots)::integer,
       (SELECT rolreplication OR rolsuper FROM pg_roles WHERE rolname = current_user),
       (SELECT rolsuper FROM pg_roles WHERE rolname = current_user),
       current_user::text
