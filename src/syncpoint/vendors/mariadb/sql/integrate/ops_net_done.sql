-- The superseded operations' list of ops_net.sql, once the netting committed or failed.
DROP TEMPORARY TABLE IF EXISTS ${tmp}
