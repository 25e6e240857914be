INSERT INTO ${positions} (application_name, location, table_name, context, stream_id)
VALUES (?, ?, ?, ?, ?)
