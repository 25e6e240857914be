UPDATE ${cdr} SET resolution = %(resolution)s WHERE table_name = %(table)s
