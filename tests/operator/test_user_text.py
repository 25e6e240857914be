"""No user-facing text refers to the project's internal specification: the README, the
``init`` file, messages (every string in the code that is not a docstring), the help of
every command, and the docs."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from typer.testing import CliRunner

import syncpoint
from syncpoint.cli.main import app

ROOT = Path(__file__).resolve().parents[2]
SRC = Path(syncpoint.__file__).parent
CITES = re.compile(r"\bSPEC\b|shared/SPEC|SPEC\.md")


def _docstrings(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                ids.add(id(body[0].value))
    return ids


def test_no_message_in_the_code_cites_the_spec() -> None:
    found = []
    for py in sorted(SRC.rglob("*.py")):
        tree = ast.parse(py.read_text("utf-8"))
        skip = _docstrings(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                if id(node) not in skip and CITES.search(node.value):
                    found.append(f"{py.relative_to(SRC)}:{node.lineno}: {node.value[:60]!r}")
    assert found == []


def test_readme_init_file_and_docs_do_not_cite_the_spec() -> None:
    files = [ROOT / "README.md", SRC / "example.yaml", *sorted((ROOT / "docs").rglob("*.md"))]
    assert [str(f) for f in files if CITES.search(f.read_text("utf-8"))] == []


def test_no_help_text_cites_the_spec() -> None:
    runner = CliRunner()
    helps = [runner.invoke(app, ["--help"]).output]
    for cmd in app.registered_commands:
        helps.append(runner.invoke(app, [cmd.name or "", "--help"]).output)
    for grp in app.registered_groups:
        helps.append(runner.invoke(app, [grp.name or "", "--help"]).output)
    assert len(helps) > 5
    assert [h[:80] for h in helps if CITES.search(h)] == []
