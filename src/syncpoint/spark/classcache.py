"""A class-data archive of the driver JVM (Java's AppCDS), so that a command that starts
Spark loads Spark's classes from one mapped file instead of from its jars.

A cold ``syncpoint run --once`` spends seconds loading and verifying classes; with the
archive it took 3-3.6 s less (bench/README.md). The first command of a machine (for a
given Java, Spark and class path) runs with ``-XX:ArchiveClassesAtExit``: its JVM writes
the classes it loaded when it exits (several seconds, after the command has ended), into a
temporary file that a small detached process puts in place once that JVM is gone. Later
commands start with ``-XX:SharedArchiveFile``. A JVM that cannot use an archive (another
Java, a changed class path, a damaged file) ignores it and loads classes as usual, so the
archive only ever saves time. Only one process writes an archive at a time (a lock file
holding the writing JVM's pid); the others start as usual meanwhile.

Where: ``$XDG_CACHE_HOME/syncpoint`` (else ``~/.cache/syncpoint``), about 150-200 MB per
archive. The three archives used last are kept (each installation of syncpoint, a virtualenv
of its own, has its class path and so its own archive: keeping one would have two
installations of a machine replace each other's at every command); older ones are removed
when a new one is made. ``spark.class_cache: false`` in the config turns it off.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

KEEP = 3  # archives kept, the ones used last

# the JVM's notes on the archive (classes it skips, an archive it cannot map) would go to
# its standard output, which may be the command's own
QUIET = "-Xlog:cds*=off"


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "syncpoint"


def _key(options: Mapping[str, str]) -> str:
    """What an archive is valid for: the Java binary, Spark's jars and the class path."""
    import pyspark

    parts = []
    home = os.environ.get("JAVA_HOME")
    java = (shutil.which("java", path=os.path.join(home, "bin")) if home else None) or shutil.which(
        "java"
    )
    for path in [java, *sorted(Path(pyspark.__file__).parent.joinpath("jars").glob("*.jar"))]:
        if path:
            real = Path(path).resolve()
            st = real.stat()
            parts.append(f"{real}:{st.st_size}:{int(st.st_mtime)}")
    for k in ("spark.jars", "spark.driver.extraClassPath", "spark.jars.packages"):
        parts.append(f"{k}={options.get(k, '')}")
    parts.append(pyspark.__version__)
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _clear_stale(folder: Path, lock: Path) -> None:
    """A writer whose JVM is gone without its archive put in place (killed, or its
    finishing process was) leaves its lock and partial archive: they go, so that another
    command can write the archive. A live writer keeps its lock however long it runs
    (``run --follow``): its archive comes when it exits."""
    try:
        pid = int(lock.read_text().strip() or "0")
    except (OSError, ValueError):
        return
    if pid and _alive(pid):
        return
    with contextlib.suppress(OSError):
        lock.unlink()
    for tmp in folder.glob(f"{lock.stem}.*.tmp"):
        with contextlib.suppress(OSError):
            tmp.unlink()


class ClassCache:
    """The archive's options for one JVM launch, and what its exit must do."""

    def __init__(self, options: Mapping[str, str]):
        self.folder = cache_dir()
        self.key = _key(options)
        self.archive = self.folder / f"spark-{self.key}.jsa"
        self.lock = self.folder / f"spark-{self.key}.lock"
        self.tmp = self.folder / f"spark-{self.key}.{os.getpid()}.tmp"
        self.writing = False

    @classmethod
    def of(cls, options: Mapping[str, str]) -> ClassCache | None:
        """The cache for this launch; None where none can be kept (no home folder, no
        Java found): the JVM then starts as usual."""
        try:
            return cls(options)
        except (OSError, RuntimeError):
            return None

    def java_options(self) -> str:
        """``-XX:SharedArchiveFile=...`` when the archive exists, ``-XX:ArchiveClassesAtExit=
        ...`` when this launch may write it, else nothing."""
        if self.archive.is_file():
            # its time says when it was used last, which decides the archives kept
            with contextlib.suppress(OSError):
                os.utime(self.archive)
            # a JVM that cannot map it says so on its own output and goes on without it
            return f"-XX:SharedArchiveFile={self.archive} -Xshare:auto {QUIET}"
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            _clear_stale(self.folder, self.lock)
            fd = os.open(self.lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except OSError:  # another command writes it, or no cache can be kept here
            return ""
        with os.fdopen(fd, "w") as f:
            f.write(str(os.getpid()))
        self.writing = True
        return f"-XX:ArchiveClassesAtExit={self.tmp} {QUIET}"

    def abandon(self) -> None:
        """No JVM was launched with these options: the lock goes."""
        if self.writing:
            self.writing = False
            with contextlib.suppress(OSError):
                self.lock.unlink()

    def launched(self, proc: Any) -> None:
        """After the launch: the writing JVM's pid in the lock, and a detached process that
        puts the archive in place once that JVM has exited and written it (the command does
        not wait for the writing: it takes several seconds)."""
        if not self.writing:
            return
        with contextlib.suppress(OSError):
            self.lock.write_text(str(proc.pid))
        args = [str(proc.pid), str(self.tmp), str(self.archive), str(self.lock)]
        try:
            subprocess.Popen(  # noqa: S603 - our own interpreter and module
                [sys.executable, "-m", "syncpoint.spark.classcache", *args],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
        except OSError:
            self.abandon()


def finish(pid: int, tmp: Path, archive: Path, lock: Path) -> None:
    """Wait for the writing JVM to exit, then put its archive in place (beyond the ``KEEP``
    used last, older archives go)."""
    while _alive(pid):
        time.sleep(0.5)
    try:
        if tmp.is_file() and tmp.stat().st_size:
            os.replace(tmp, archive)
            others = [p for p in archive.parent.glob("spark-*.jsa") if p != archive]
            others.sort(key=lambda p: p.stat().st_mtime, reverse=True)
            for old in others[KEEP - 1 :]:
                old.unlink()
    except OSError:
        pass
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink()
        with contextlib.suppress(OSError):
            lock.unlink()


if __name__ == "__main__":
    finish(int(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]), Path(sys.argv[4]))
