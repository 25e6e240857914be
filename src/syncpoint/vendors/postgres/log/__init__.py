"""PostgreSQL log capture: logical decoding of the write-ahead log into the queue."""
