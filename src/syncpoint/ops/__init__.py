"""The operations behind the commands, for the CLI and for Python callers.

``channel`` (the ``Channel`` API), ``run`` and ``round`` (rounds), ``status`` (integrate
status), ``gate`` and ``transport`` (turns around transport tables), and one package per
larger operation: ``snapshot`` (initial load and the hand-over to rounds), ``verify``
(compare targets with their sources, repair), ``cdr`` (conflict resolution between sites),
``serve`` (the status page and /metrics). The CLI only parses arguments and prints.
"""
