-- A new (or restarted) snapshot of one table: the old row goes (snapshot_start follows).
DELETE FROM ${snapshots} WHERE application_name = ? AND location = ? AND table_name = ?
