"""``Location``: one location of a channel as the operations use it: its name, URL and
vendor, its capture and integrate sides, and connections that close themselves.

The URL is a secret of the configuration: it is unwrapped here, once, and kept out of
``repr``. ``capture()``, ``integrate()`` and ``connect()`` are context managers whose
connection is closed at the end whatever happened (a broken one is closed already).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from syncpoint import vendors

if TYPE_CHECKING:
    from syncpoint.config import ChannelConfig
    from syncpoint.vendors.base import Capture
    from syncpoint.vendors.integratebase import Integrate


@dataclass(frozen=True)
class Location:
    name: str
    url: str = field(repr=False)
    prefix: str
    capture_kind: str = "trigger"  # or "log": which of the vendor's capture roles

    @classmethod
    def of(cls, cfg: ChannelConfig, name: str) -> Location:
        """The location ``name`` of a channel."""
        loc = cfg.locations[name]
        return cls(name, loc.url.get_secret_value(), cfg.prefix, loc.capture_kind)

    @property
    def vendor(self) -> str:
        return vendors.vendor_of(self.url)

    @property
    def file_missing(self) -> bool:
        """The location is a database file that does not exist (connecting would make it)."""
        file = vendors.of_url(self.url).dialect.file_of(self.url)
        return file is not None and not os.path.exists(file)

    @property
    def file_not_made(self) -> bool:
        """The location is a database file no run has made yet, in a folder that exists (a
        missing folder is a wrong path, reported when connecting)."""
        file = vendors.of_url(self.url).dialect.file_of(self.url)
        if file is None:
            return False
        path = os.path.abspath(file)
        return not os.path.exists(path) and os.path.isdir(os.path.dirname(path))

    def make_file(self) -> None:
        """The database file of a location that only integrates, made empty (``install``)."""
        file = vendors.of_url(self.url).dialect.file_of(self.url)
        if file is not None and not os.path.exists(file):
            close(vendors.connect(self.url, location=self.name))

    @cached_property
    def capture_side(self) -> Capture:
        """The capture objects of the channel's prefix here (connect as needed)."""
        return vendors.of_url(self.url).capture_class(self.capture_kind)(
            self.name, self.url, self.prefix
        )

    @cached_property
    def integrate_side(self) -> Integrate:
        """The control tables and targets of the channel's prefix here."""
        return vendors.of_url(self.url).Integrate(self.name, self.url, self.prefix)

    @contextmanager
    def connect(self, autocommit: bool = False) -> Iterator[Any]:
        """A connection here, closed at the end."""
        conn = vendors.connect(self.url, location=self.name, autocommit=autocommit)
        try:
            yield conn
        finally:
            close(conn)

    @contextmanager
    def capture(self) -> Iterator[tuple[Capture, Any]]:
        """The capture side with a connection of its own, closed at the end."""
        side = self.capture_side
        conn = side.connect()
        try:
            yield side, conn
        finally:
            close(conn)

    @contextmanager
    def integrate(self) -> Iterator[tuple[Integrate, Any]]:
        """The integrate side with a connection of its own, closed at the end."""
        side = self.integrate_side
        conn = side.connect()
        try:
            yield side, conn
        finally:
            close(conn)


def close(conn: Any) -> None:
    """Close a connection; one that broke is closed already, and saying so would only hide
    the error that broke it."""
    if conn is None:
        return
    try:
        conn.close()
    except Exception:  # noqa: BLE001 - see the docstring
        pass
