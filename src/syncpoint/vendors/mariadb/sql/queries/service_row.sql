-- The service row of a fresh install: tick 0 and a new stream identity. Re-running install
-- keeps both (INSERT IGNORE); only the location name follows the configuration.
INSERT IGNORE INTO ${service_context} (id, context, stream_id, location, installed_at)
VALUES (1, 0, %(stream_id)s, %(location)s, UTC_TIMESTAMP(6))
---
UPDATE ${service_context} SET location = %(location)s WHERE id = 1 AND location <> %(location)s
