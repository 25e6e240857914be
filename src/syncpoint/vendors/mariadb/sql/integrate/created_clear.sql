-- A created target table's indexes and foreign keys were added.
DELETE FROM ${created} WHERE table_name = %s
