-- Stamp by primary key only: never waits on another transaction's uncommitted records.
UPDATE ${items} SET context = %s WHERE repl_key IN ($raw{keys})
