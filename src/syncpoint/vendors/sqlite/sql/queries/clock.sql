-- The capture clock (the one the triggers stamp captured_at with), UTC, milliseconds.
SELECT strftime('%Y-%m-%d %H:%M:%f', 'now') || '000'
