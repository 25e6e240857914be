-- Net rows of a round as Spark wrote them to CSV files (the integrate side's staging_csv:
-- quotes doubled, NULL an empty unquoted field), streamed by the driver.
COPY ${staging} (application_name, sync_name, round_id, tbl, action, content, repl_key, origin)
FROM STDIN (FORMAT csv)
