-- A new (or restarted) snapshot of one table: the old row goes (snapshot_start follows).
DELETE FROM ${snapshots} WHERE application_name = %s AND location = %s AND table_name = %s
