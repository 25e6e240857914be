-- Ends the lock's connection (its thread waits in show_holder): the lock goes with it.
KILL CONNECTION %s
