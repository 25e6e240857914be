-- A copy task's own session: LOAD DATA reads COPY's text form, whose escapes are
-- backslashes (the pinned NO_BACKSLASH_ESCAPES would make '\t' two characters).
SET SESSION sql_mode = 'STRICT_ALL_TABLES,NO_ENGINE_SUBSTITUTION'
