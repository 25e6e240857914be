COALESCE(IF($raw{cond},
        (SELECT $raw{row}
           FROM ${table} src WHERE $raw{where} LIMIT 1), NULL),
        $raw{new})
