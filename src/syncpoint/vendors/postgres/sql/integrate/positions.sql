SELECT application_name, location, table_name, context, stream_id FROM ${positions}
