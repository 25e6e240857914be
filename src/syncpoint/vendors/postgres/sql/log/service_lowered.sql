UPDATE ${schema}.${service} SET guaranteed = least(guaranteed, %(g)s)
