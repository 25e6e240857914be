DELETE FROM ${stops} WHERE application_name = ? AND location = ? AND table_name = ?
