-- The lock's session says who holds it (host and process), for the one that is refused.
SELECT set_config('application_name', %s, false)
