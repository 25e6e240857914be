UPDATE ${items} SET context = ? WHERE context IS NULL
