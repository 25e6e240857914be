"""The package's shape, read from its source: the import graph has no cycle (imports inside
functions included, ``TYPE_CHECKING`` ones not), the operations import each other one way
only and never another's private names, ``core/`` and ``spark/`` name no vendor, and only
``vendors/`` (and the demo's own application) imports a database driver."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import syncpoint

SRC = Path(syncpoint.__file__).parent
VENDOR_NAMES = re.compile(r"postgres|mariadb|mysql|sqlite|psycopg|pymysql", re.IGNORECASE)
DRIVERS = ("psycopg", "pymysql", "sqlite3")


def _modules() -> dict[str, Path]:
    out = {}
    for p in SRC.rglob("*.py"):
        parts = ["syncpoint", *p.relative_to(SRC).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = p
    return out


MODULES = _modules()


def _resolve(name: str) -> str | None:
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _imports(module: str) -> list[tuple[str, list[str]]]:
    """(imported name, names taken from it) of every import the module runs."""
    path = MODULES[module]
    found: list[tuple[str, list[str]]] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for n in node.orelse:
                visit(n)
            return
        if isinstance(node, ast.Import):
            found.extend((a.name, []) for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                pkg = module if path.name == "__init__.py" else module.rpartition(".")[0]
                for _ in range(node.level - 1):
                    pkg = pkg.rpartition(".")[0]
                base = f"{pkg}.{base}" if base else pkg
            found.append((base, [a.name for a in node.names]))
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text("utf-8")))
    return found


def _graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for m in MODULES:
        deps = set()
        for base, names in _imports(m):
            for name in names or [""]:
                target = _resolve(f"{base}.{name}" if name else base)
                if target and target != m:
                    deps.add(target)
        graph[m] = deps
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def strong(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            strong(v)
    return out


def _operation(module: str) -> str | None:
    """The operation a module belongs to: ``syncpoint.ops.snapshot.copy`` -> ``snapshot``."""
    parts = module.split(".")
    return parts[2] if len(parts) > 2 and parts[1] == "ops" else None


def test_the_import_graph_has_no_cycle() -> None:
    graph = _graph()
    assert len(graph) > 100
    assert _cycles(graph) == []


def test_operations_import_each_other_one_way_only() -> None:
    ops: dict[str, set[str]] = {}
    for m, deps in _graph().items():
        if (a := _operation(m)) is not None:
            ops.setdefault(a, set()).update(
                b for d in deps if (b := _operation(d)) is not None and b != a
            )
    assert {"channel", "run", "round", "status", "location"} <= set(ops)
    assert _cycles(ops) == []


def test_no_operation_takes_another_ones_private_names() -> None:
    found = []
    for m in MODULES:
        if _operation(m) is None:
            continue
        for base, names in _imports(m):
            other = _resolve(base)
            if other and _operation(other) not in (None, _operation(m)):
                found += [f"{m}: {base}.{n}" for n in names if n.startswith("_")]
    assert found == []


def test_core_and_spark_name_no_vendor() -> None:
    found = [
        f"{p.relative_to(SRC)}:{i}: {line.strip()}"
        for folder in ("core", "spark")
        for p in sorted((SRC / folder).rglob("*.py"))
        for i, line in enumerate(p.read_text("utf-8").splitlines(), 1)
        if VENDOR_NAMES.search(line)
    ]
    assert found == []


def test_only_vendors_import_a_driver() -> None:
    found = [
        f"{m}: {base}"
        for m in MODULES
        if not m.startswith(("syncpoint.vendors.", "syncpoint.demo."))
        for base, _names in _imports(m)
        if base.split(".")[0] in DRIVERS
    ]
    assert found == []
