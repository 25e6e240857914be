"""MariaDB log capture: the binary log read into the queue."""
