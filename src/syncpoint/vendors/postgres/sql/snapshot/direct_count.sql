SELECT count(*) FROM ${staging} WHERE ${attempt} = %s
