DELETE FROM ${stops} WHERE application_name = %s AND location = %s AND table_name = %s
