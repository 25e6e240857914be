"""``Channel``: the operations of SPEC §3 on one configuration, for the CLI and for Python
callers (Airflow, Dagster, notebooks). It coordinates vendors and, for ``run``, Spark; it
holds no SQL and no vendor detail of its own.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from syncpoint import config as cfgmod
from syncpoint.config import ChannelConfig
from syncpoint.errors import ConfigError, SyncpointError, WorkFailed
from syncpoint.vendors import capture_for, connect
from syncpoint.vendors.base import Capture


class Channel:
    def __init__(self, cfg: ChannelConfig, source: str = "<config>"):
        self.cfg = cfg
        self.source = source

    @classmethod
    def from_file(cls, path: str | os.PathLike[str] | None = None) -> Channel:
        p = path or cfgmod.DEFAULT_FILE
        return cls(cfgmod.load(p), str(p))

    @classmethod
    def from_dict(cls, data: dict[str, Any], source: str = "<dict>") -> Channel:
        return cls(cfgmod.from_dict(data, source), source)

    # -- helpers -----------------------------------------------------------------------
    def url(self, location: str) -> str:
        return self.cfg.locations[location].url.get_secret_value()

    def capture(self, location: str) -> Capture:
        return capture_for(location, self.url(location), self.cfg.prefix)

    @contextmanager
    def connection(self, location: str) -> Iterator[Any]:
        conn = connect(self.url(location), location=location)
        try:
            yield conn
        finally:
            try:
                conn.close()
            except Exception:  # noqa: BLE001 - closing a broken connection must not mask
                pass

    # -- validate / plan / install -------------------------------------------------------
    def validate(self) -> dict[str, list[str]]:
        """Connect to every location and list every problem found, per location."""
        problems: dict[str, list[str]] = {}
        for name, loc in self.cfg.locations.items():
            found: list[str] = []
            try:
                cap = self.capture(name)
                with self._cap_conn(cap) as conn:
                    if loc.capture:
                        found += cap.check(conn, self.cfg.tables_at(name))
            except SyncpointError as exc:
                found.append(str(exc))
            problems[name] = found
        return problems

    @contextmanager
    def _cap_conn(self, cap: Capture) -> Iterator[Any]:
        conn = cap.connect()
        try:
            yield conn
        finally:
            try:
                conn.close()
            except Exception:  # noqa: BLE001
                pass

    def _refuse_problems(self) -> None:
        problems = self.validate()
        flat = [f"{self.source}: {loc}: {p}" for loc, ps in problems.items() for p in ps]
        if flat:
            raise ConfigError(f"{self.source}: the channel cannot be installed", flat)

    def plan(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for name in self.cfg.capture_locations():
            cap = self.capture(name)
            with self._cap_conn(cap) as conn:
                out[name] = cap.plan(conn, self.cfg.tables_at(name))
        return out

    def install(self) -> dict[str, str]:
        """Install capture at every capture location; refuses (exit 2) before touching
        anything when validation finds a problem. A location that fails is rolled back."""
        self._refuse_problems()
        done: dict[str, str] = {}
        for name in self.cfg.capture_locations():
            cap = self.capture(name)
            with self._cap_conn(cap) as conn:
                cap.install(conn, self.cfg.tables_at(name))
            done[name] = "installed"
        return done

    def uninstall(self) -> dict[str, str]:
        done: dict[str, str] = {}
        for name in self.cfg.capture_locations():
            cap = self.capture(name)
            with self._cap_conn(cap) as conn:
                cap.uninstall(conn)
            done[name] = "uninstalled"
        return done

    def capture_status(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name in self.cfg.capture_locations():
            cap = self.capture(name)
            try:
                with self._cap_conn(cap) as conn:
                    st = cap.status(conn)
                    if st.installed and cap.poll_ddl(conn):
                        st = cap.status(conn)  # the poll wrote DDL records
                out[name] = _status_dict(st)
            except WorkFailed as exc:
                out[name] = {"error": str(exc)}
        return out

    # -- run / purge / integrate status (syncpoint.runner) ----------------------------------
    def run(
        self,
        once: bool = True,
        follow: bool = False,
        interval: float = 1.0,
        group: str | None = None,
        spark: Any = None,
        on_report: Any = None,
    ) -> Any:
        """Rounds to fresh sync points (``once``) or again and again (``follow``, until
        SIGTERM/SIGINT). Returns a ``runner.RunReport``; raises ``TableStopped`` (exit 1)
        when a table's rounds stopped."""
        from syncpoint import runner

        return runner.run(
            self.cfg,
            once=once,
            follow=follow,
            interval=interval,
            group=group,
            spark=spark,
            on_report=on_report,
            after_pass=self._load_transport if self.cfg.transport and group is None else None,
        )

    def _load_transport(self, report: Any) -> None:
        """The consumer turn of the transport gate after the rounds (SPEC §7): the transport
        tables are loaded in full when the producer has finished a batch; a refused turn
        (a failed earlier load) ends the run with exit 3."""
        from syncpoint.transport import load_transport

        report.transport.append(load_transport(self))

    def purge(self) -> dict[str, Any]:
        """Delete the change records every registered application has applied."""
        from syncpoint import runner

        return runner.purge(self.cfg)

    def integrate_status(self) -> dict[str, Any]:
        """Per integrate location and table: position, sync point, backlog, lag, stops."""
        from syncpoint.integratestatus import integrate_status

        return integrate_status(self.cfg)

    def stamps_status(self) -> dict[str, Any]:
        """Per integrate location: leader, trailer and every capture location's receive stamp
        (SPEC §5 ``{p}stin_{channel}_{loc}``) with its age."""
        from syncpoint.vendors import vendor_of
        from syncpoint.vendors.stampstore import StampStore

        out: dict[str, Any] = {}
        for integ in self.cfg.integrate_locations():
            url = self.url(integ)
            sources = [n for n in self.cfg.capture_locations() if n != integ]
            store = StampStore(vendor_of(url), self.cfg.prefix, self.cfg.channel, integ)
            try:
                with self.connection(integ) as conn:
                    out[integ] = store.report(conn, sources)
            except WorkFailed as exc:
                out[integ] = {"error": str(exc)}
        return out

    def gate_status(self) -> dict[str, Any]:
        """Every gate of this prefix at the transport and integrate locations."""
        from syncpoint.gate import gate_states

        return gate_states(self.cfg)


def _status_dict(st: Any) -> dict[str, Any]:
    from dataclasses import asdict

    return asdict(st)
