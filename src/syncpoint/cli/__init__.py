"""The command line: one thin module per command; logic lives in ``Channel`` and below."""
