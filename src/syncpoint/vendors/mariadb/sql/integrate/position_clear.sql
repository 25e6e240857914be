-- A finished snapshot replaces the table's position (then position_insert of t0).
DELETE FROM ${positions} WHERE application_name = %s AND location = %s AND table_name = %s
