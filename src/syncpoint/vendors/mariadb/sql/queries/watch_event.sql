-- A DDL event of a watched table: a new shape version, what must be captured again, status.
UPDATE ${tables}
   SET version = version + 1, status = %(status)s,
       pending_event = COALESCE(%(pending)s, pending_event),
       refresh_from = CASE WHEN refresh_from < 0 OR %(refresh_from)s IS NULL THEN refresh_from
                           WHEN %(refresh_from)s < 0 OR refresh_from IS NULL THEN %(refresh_from)s
                           ELSE LEAST(refresh_from, %(refresh_from)s) END
 WHERE schemaname = %(schema)s AND tablename = %(table)s
