-- The tick's own clock reading (a later statement: the function's insert is not visible to
-- the statement that called it).
SELECT made_at FROM ${schema}.${ticks} WHERE tick_id = %s
