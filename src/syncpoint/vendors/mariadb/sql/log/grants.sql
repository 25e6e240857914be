-- The grants of the session's account.
SHOW GRANTS
