, ${pending} AS p WHERE p.tablename = $lit{table} AND $raw{gone} ORDER BY p.seq
