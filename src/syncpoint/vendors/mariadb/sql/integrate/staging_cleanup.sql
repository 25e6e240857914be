-- Rows of earlier attempts of this application (crashed rounds); never applied.
DELETE FROM ${staging} WHERE application_name = %s AND round_id <> %s
