"""What the demo's steps share: the folder, options, the channel, and each step's results.

Steps report progress through ``note`` (a line of text) and ``event`` (a structured event,
such as a round that was just applied); the CLI decides how to show them. Results go into
``results`` under the step's name, and checks into ``checks``: together they are the
``--json`` document.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from syncpoint.ops.channel import Channel

Listener = Callable[[str, dict[str, Any]], None]


@dataclass
class DemoState:
    workdir: Path
    seconds: float = 5.0
    spark_master: str = "local[*]"
    listener: Listener | None = None
    config: Path | None = None
    channel: Channel | None = None
    results: dict[str, Any] = field(default_factory=dict)
    checks: list[dict[str, Any]] = field(default_factory=list)
    writers: list[Any] = field(default_factory=list)  # the application at each source
    started: float = field(default_factory=time.monotonic)

    def path(self, location: str) -> Path:
        return self.workdir / f"{location}.db"

    def url(self, location: str) -> str:
        return f"sqlite:///{self.path(location)}"

    @property
    def ch(self) -> Channel:
        assert self.channel is not None, "write_config runs first"
        return self.channel

    @property
    def ok(self) -> bool:
        return bool(self.checks) and all(c["ok"] for c in self.checks)

    def elapsed(self) -> float:
        return round(time.monotonic() - self.started, 1)

    def event(self, kind: str, **data: Any) -> None:
        if self.listener is not None:
            self.listener(kind, data)

    def note(self, text: str) -> None:
        self.event("note", text=text)

    def check(self, name: str, ok: bool, detail: str, **data: Any) -> None:
        self.checks.append({"check": name, "ok": bool(ok), "detail": detail, **data})
        self.event("check", check=name, ok=bool(ok), detail=detail)
