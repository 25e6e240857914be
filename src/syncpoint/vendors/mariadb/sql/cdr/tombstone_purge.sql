DELETE FROM ${tombstones} WHERE table_name = %(table)s AND `key` = %(key)s AND kv = %(kv)s
