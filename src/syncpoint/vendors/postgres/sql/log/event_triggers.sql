SELECT count(*) > 0 FROM pg_event_trigger WHERE evtname = %(name)s
