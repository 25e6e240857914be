-- The write lock is taken before the row is read: a deferred BEGIN that read first could not
-- upgrade once another connection committed (SQLITE_BUSY at once, busy timeout ignored).
BEGIN IMMEDIATE
