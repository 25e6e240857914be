SET $raw{origin} = %(origin)s
