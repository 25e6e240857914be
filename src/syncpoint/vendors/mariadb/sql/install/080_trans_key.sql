-- The transaction key of the calling session's current transaction (MariaDB has no function
-- for the InnoDB transaction id). A session gets a unique id once (UUID_SHORT: unique per
-- server, across restarts). Inside a transaction (@@in_transaction = 1) the key adds the
-- session's count of transaction boundaries (BEGIN, COMMIT, ROLLBACK, XA START/COMMIT/
-- ROLLBACK), which changes at every explicit boundary and at no other statement; outside one
-- (autocommit: one statement is one transaction; @@in_transaction reads 0 even inside the
-- trigger) it adds the client statement count and the statement's start time (so the
-- statements of one CALL, each its own transaction, differ too).
--
-- Reading information_schema.SESSION_STATUS costs about 0.1 ms (it lists every status
-- variable), so the key is computed once per statement: the triggers reuse @<prefix>tk while
-- @@timestamp (the statement's start, in microseconds) and @@in_transaction are unchanged and
-- the statement started less than 10 s ago.
--
-- Verified (tests/vendors/test_mariadb_capture_stream.py): one key per multi-row autocommit
-- statement, per explicit transaction, per transaction of an autocommit-off session; a new
-- key after COMMIT, ROLLBACK or a BEGIN that commits implicitly; one key per statement of a
-- CALL in autocommit mode, one for a CALL inside a transaction; one for a multi-table UPDATE.
-- Limits: (1) an implicit commit by DDL, LOCK TABLES and the like in an autocommit-off
-- session does not change the key (the rows before and after share it); (2) FLUSH STATUS
-- resets the session's counters, so a later transaction of that session may get one of its
-- earlier keys again; (3) a session that froze its clock with SET TIMESTAMP less than 10 s in
-- the past keeps one key across its transactions while the clock stays frozen.
CREATE OR REPLACE FUNCTION ${trans_key}() RETURNS VARCHAR(100) CHARACTER SET ascii
NOT DETERMINISTIC READS SQL DATA
BEGIN
  DECLARE v_q, v_t BIGINT UNSIGNED;
  IF $raw{var}tk IS NULL OR $raw{var}tk_at <> @@timestamp
     OR $raw{var}tk_tx <> @@in_transaction
     OR UNIX_TIMESTAMP(SYSDATE(6)) - @@timestamp NOT BETWEEN 0 AND 10 THEN
    SELECT SUM(IF(VARIABLE_NAME = 'QUESTIONS', VARIABLE_VALUE, 0)),
           SUM(IF(VARIABLE_NAME = 'QUESTIONS', 0, VARIABLE_VALUE))
      INTO v_q, v_t
      FROM information_schema.SESSION_STATUS
     WHERE VARIABLE_NAME IN ('QUESTIONS', 'COM_BEGIN', 'COM_COMMIT', 'COM_ROLLBACK',
                             'COM_XA_START', 'COM_XA_COMMIT', 'COM_XA_ROLLBACK');
    SET $raw{var}sess = COALESCE($raw{var}sess, UUID_SHORT());
    SET $raw{var}tk = IF(@@in_transaction = 1,
                         CONCAT($raw{var}sess, '-t', v_t),
                         CONCAT($raw{var}sess, '-q', v_q, '-', @@timestamp));
    SET $raw{var}tk_at = @@timestamp, $raw{var}tk_tx = @@in_transaction;
  END IF;
  RETURN $raw{var}tk;
END
