SELECT tbl, count(*) FROM ${staging} WHERE round_id = ? GROUP BY tbl
