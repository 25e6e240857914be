"""``python -m syncpoint ...`` and ``spark-submit .../syncpoint/__main__.py ...``: the same
command line as ``syncpoint``. Under spark-submit the launcher's settings (``--master``,
``--conf``) win over the channel's ``spark:`` section."""

from syncpoint.cli.main import main

if __name__ == "__main__":
    main()
