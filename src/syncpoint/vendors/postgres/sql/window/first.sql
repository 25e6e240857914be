-- The first $raw{n} records of a window, in no order (a round's survey that needs every
-- record's count only while the window is small enough to be netted by the driver).
SELECT * FROM ($raw{query}) f LIMIT $raw{n}
