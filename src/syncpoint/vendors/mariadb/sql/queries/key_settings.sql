-- What decides whether every repl_key comes from this server, one after the other: the
-- server's AUTO_INCREMENT step and offset, and Galera (wsrep_on; the variable exists only in
-- servers built with it, hence read from the catalog).
SELECT @@global.auto_increment_increment, @@global.auto_increment_offset,
       (SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_VARIABLES
         WHERE VARIABLE_NAME = 'WSREP_ON')
