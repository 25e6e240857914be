-- The netting's sort in memory where it fits (the transaction's own setting).
SET LOCAL work_mem = '64MB'
