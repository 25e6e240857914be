SELECT tbl, count(*) FROM ${staging} WHERE round_id = %s GROUP BY tbl
