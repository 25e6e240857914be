-- Once per connection; the level is one of a fixed set named in gate.py, never user text.
SET SESSION TRANSACTION ISOLATION LEVEL $raw{level}
