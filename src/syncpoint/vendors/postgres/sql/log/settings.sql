-- The drain transaction writes values as the trigger capture pins them (its output
-- functions run under these for the decoded text, and the same settings read it back).
SELECT set_config('TimeZone', 'UTC', true), set_config('extra_float_digits', '1', true),
       set_config('IntervalStyle', 'postgres', true), set_config('DateStyle', 'ISO, MDY', true),
       set_config('bytea_output', 'hex', true)
