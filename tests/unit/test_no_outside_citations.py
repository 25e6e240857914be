"""The repository cites only what it contains: no source, SQL file, doc, bench script or
test names a specification or research note kept outside it (a maintainer or user who
clones the repository has neither); each cites the page of docs/ that says the same."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# spelled in pieces, so that this file does not cite them itself
OUTSIDE = re.compile(
    r"\b" + "SP" + r"EC\b|" + "reli" + r"ability\.md|" + "peer" + r"-bench\.md|/work/" + "shared"
)


def files() -> list[Path]:
    listed = subprocess.run(
        ["git", "ls-files", "src", "docs", "bench", "tests", "README.md"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    if listed.returncode == 0 and listed.stdout.strip():
        names = [ROOT / n for n in listed.stdout.split()]
    else:  # not a git checkout (an unpacked archive): every file
        names = [p for d in ("src", "docs", "bench", "tests") for p in (ROOT / d).rglob("*")]
        names.append(ROOT / "README.md")
    return [
        p for p in names if p.is_file() and p.suffix in {".py", ".sql", ".md", ".yaml", ".html"}
    ]


def test_nothing_cites_a_document_outside_the_repository() -> None:
    found = [
        f"{p.relative_to(ROOT)}:{i}: {line.strip()}"
        for p in files()
        for i, line in enumerate(p.read_text("utf-8", errors="replace").splitlines(), 1)
        if OUTSIDE.search(line) and "re.compile(" not in line
    ]
    assert found == [], "cite the docs/ page instead:\n" + "\n".join(found)
