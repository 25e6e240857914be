UPDATE ${items} SET content = ?, oldcontent = ?, fix = NULL WHERE repl_key = ?
