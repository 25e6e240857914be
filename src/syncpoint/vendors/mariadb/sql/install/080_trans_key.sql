-- The transaction key of the calling session's current transaction (MariaDB has no function
-- for the InnoDB transaction id). A session gets a unique id once (UUID_SHORT, unique per
-- server and across restarts). Inside a transaction (@@in_transaction = 1) the key adds the
-- session's count of transaction boundaries (BEGIN, COMMIT, ROLLBACK, XA START/COMMIT/
-- ROLLBACK), which changes at every explicit boundary and at no other statement; outside one
-- (autocommit: one statement is one transaction; @@in_transaction reads 0 even inside the
-- trigger) it adds the client statement count and the statement's start time (so the
-- statements of one CALL, each its own transaction, differ too).
-- Reading information_schema.SESSION_STATUS costs about 0.1 ms, so the key is computed once
-- per statement: it is kept while @@timestamp (the statement's start, microseconds) and
-- @@in_transaction stay the same and the statement started less than 10 s ago (a session
-- that froze its clock with SET TIMESTAMP does not reuse a key for long).
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
