"""Watching a channel from outside: the warnings ``status`` gives, the JSON Schema of
``status --json``, and the Prometheus metrics shared by ``serve`` and ``run --metrics-port``."""
