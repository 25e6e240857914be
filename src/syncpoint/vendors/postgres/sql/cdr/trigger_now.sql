-- A fragment of cdr add's triggers: the version a local write stamps: UTC time with microseconds, and the location.
to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') || '|'
         || $lit{location}
