-- Whether a session holds the named lock now (its connection id, else NULL).
SELECT IS_USED_LOCK(%s)
