UPDATE ${cdr} SET resolution = :resolution WHERE table_name = :table
