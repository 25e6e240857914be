SELECT name, "unique", origin, partial FROM pragma_index_list(?, 'main') ORDER BY seq
