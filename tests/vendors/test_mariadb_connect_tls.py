"""A MariaDB connection without TLS settings in its URL takes PyMySQL's default (TLS when
the server offers it) from one context made once per process, not one per connect (each
loads the system's certificates: tens of milliseconds of CPU, at every gate turn and
round); a URL's own TLS setting still gets a context of its own."""

from __future__ import annotations

import ssl
from typing import Any

from syncpoint.vendors.mariadb import dialect


def test_connections_without_tls_settings_share_one_context(maria_db: Any) -> None:
    a, b = dialect.connect(maria_db.url), dialect.connect(maria_db.url)
    try:
        assert a.ctx is not None and a.ctx is b.ctx
        assert a.ctx.verify_mode == ssl.CERT_NONE  # PyMySQL's preferred mode, unchanged
        own = dialect.Connection(
            host="127.0.0.1",
            ssl={"check_hostname": False, "verify_mode": ssl.CERT_NONE},
            defer_connect=True,
        )
        assert own.ctx is not a.ctx
    finally:
        a.close()
        b.close()
