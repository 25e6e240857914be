-- The connection holding the named lock, if any: its client address and the statement it
-- runs (show_holder.sql, which names the host and process).
SELECT p.USER, p.HOST, p.ID, p.INFO FROM information_schema.PROCESSLIST p
WHERE p.ID = IS_USED_LOCK(%s)
