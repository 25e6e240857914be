-- Net rows of a round netted by the driver (a small round: no Spark job), the columns
-- Spark's staging write fills (origin: where the winning change was first made).
INSERT INTO ${staging} (application_name, sync_name, round_id, tbl, action, content, repl_key,
                        origin)
VALUES (%s, %s, %s, %s, %s, %s, %s, %s)
