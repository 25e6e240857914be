-- Whether this prefix's DDL event trigger exists (else DDL is found by polling each tick).
SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_event_trigger WHERE evtname = $lit{et_ddl})
