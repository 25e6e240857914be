-- tick() finds the records no tick has stamped yet (context IS NULL); purge() the old ones.
CREATE INDEX ${items_context} ON ${items} (context)
