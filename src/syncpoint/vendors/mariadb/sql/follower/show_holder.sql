-- Run again and again by a thread on the lock's connection while it holds the lock: MariaDB
-- keeps no name of a connection that another can read (without performance_schema), but the
-- process list shows the statement a connection runs, and so who holds the lock. A second
-- at a time: the server notices a client gone (a SIGKILLed follower) only when it answers.
SELECT %s AS holder, SLEEP(1)
