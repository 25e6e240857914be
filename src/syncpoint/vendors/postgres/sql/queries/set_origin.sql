SELECT set_config(%(setting)s, %(origin)s, true)
