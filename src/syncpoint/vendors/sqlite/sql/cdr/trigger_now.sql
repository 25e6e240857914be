-- A fragment of cdr add's triggers: the version a local write stamps: UTC time (milliseconds, padded to microseconds), and
-- the location.
strftime('%Y-%m-%dT%H:%M:%f', 'now') || '000|' || $lit{location}
