-- First statements of a reading session's transaction: read the exported state of the
-- group's snapshot (export.sql), not a state of its own.
SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY;
SET TRANSACTION SNAPSHOT $lit{snapshot}
