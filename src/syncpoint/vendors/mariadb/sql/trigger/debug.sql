    INSERT INTO ${debug_table} (repl_key, line)
    VALUES (LAST_INSERT_ID(), CONCAT_WS(' ', '$raw{action}', $lit{tablename}, 'trans_key', v_tk,
                                        'dbid', v_dbid, 'version', $raw{version},
                                        'bytes', LENGTH(COALESCE(v_new, v_old))));
