-- The grants of the session's account (and of its current role).
SHOW GRANTS
