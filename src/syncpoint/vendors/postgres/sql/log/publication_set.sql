ALTER PUBLICATION ${pub} SET TABLE $raw{tables}
