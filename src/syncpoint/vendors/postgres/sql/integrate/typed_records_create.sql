-- A copy task's records of another vendor's source (the round's direct path into a typed
-- staging), as the source wrote them, for typed_records_insert.sql to parse in the task's
-- own transaction. Temporary: written without WAL, seen by the task's session only (the
-- tasks of a round each have their own), gone at its commit.
CREATE TEMPORARY TABLE sp_records (
    repl_key   bigint NOT NULL,
    db_action  text NOT NULL,
    content    text,
    oldcontent text
) ON COMMIT DROP
