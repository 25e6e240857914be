INSERT INTO ${origin_marks} (session, origin, n) VALUES (CONNECTION_ID(), %(origin)s, 1)
ON DUPLICATE KEY UPDATE origin = VALUES(origin), n = n + 1
