-- The connection holding the named lock, if any (its client address; MariaDB shows no
-- process id of the client without performance_schema).
SELECT p.USER, p.HOST, p.ID FROM information_schema.PROCESSLIST p WHERE p.ID = IS_USED_LOCK(%s)
