DELETE FROM ${items} WHERE context <= ?
