, ${pending} AS p
 WHERE p.tablename = $lit{table} AND p.kind = $lit{kind} AND $raw{gone}
 
