-- Whether a target table's indexes and foreign keys still wait for its load.
SELECT location FROM ${created} WHERE table_name = %s
