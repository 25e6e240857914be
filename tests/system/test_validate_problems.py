"""``validate`` lists every problem of a channel file in one run: a file with ten different
problems (in the file, between its parts, at the databases) reports all ten, connecting to
the locations that are valid even though other parts are wrong; nothing is changed. The
problems and the ok lines are one stream, each location's lines in the locations' order."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.system import roundkit as rk

FILE = """\
channel: shop
prefix: Bad-Prefix
colour: blue
locations:
  src: {{url: "{src}", capture: true}}
  cen: {{url: "{src}"}}
  old: {{url: "oracle://x", integrate: true}}
  good: {{url: "{src}", integrate: true}}
  down: {{url: "postgresql://postgres@127.0.0.1:1/nope", integrate: true}}
tables:
  - {{name: public.orders}}
  - {{name: public.missing}}
  - {{name: public.orders2, key: [nope]}}
  - {{name: public.x, actions: IUX}}
  - {{name: public.y, ddl_policy: sometimes}}
sync_groups: {{g: [public.zzz]}}
transport: {{gate: g, location: nowhere, tables: [t]}}
"""

EXPECTED = [
    "prefix: 'Bad-Prefix' is not a plain lowercase name",
    "colour: unknown key",
    "locations.cen: a location needs a role",
    "locations.old.url: URL scheme 'oracle' is not one of",
    "tables[3] (public.x).actions: actions 'IUX' must be a non-empty subset of I, U, D",
    "tables[4] (public.y).ddl_policy: Input should be 'stop', 'apply' or 'ignore'",
    "sync_groups: g: 'public.zzz' is not a replicated table of this channel",
    "transport: location 'nowhere' is not defined",
    "src: table public.missing: does not exist at location src",
    "src: table public.orders2: key column 'nope' does not exist at src",
    "down: location down: cannot connect to postgresql://postgres@127.0.0.1:1/nope",
]


def test_validate_lists_every_problem_in_one_run(pg_db: Any, tmp_path: Path) -> None:
    pg_db.execute(
        "CREATE TABLE orders (id int PRIMARY KEY, v text)",
        "CREATE TABLE orders2 (id int PRIMARY KEY)",
    )
    cfg = tmp_path / "syncpoint.yaml"
    cfg.write_text(FILE.format(src=pg_db.url))
    before = pg_db.query("SELECT count(*) FROM pg_class")
    r = rk.syncpoint(cfg, "validate")
    assert r.returncode == 2
    # one stream, in order: the file's problems, then each location's problems or its ok
    lines = r.stdout.splitlines()
    for want in EXPECTED:
        assert [ln for ln in lines if f"{cfg}: {want}" in ln], (want, r.stdout)
    problems = [ln for ln in lines if ln.startswith(f"{cfg}: ")]
    assert len(problems) == len(EXPECTED), r.stdout
    at = [next(i for i, ln in enumerate(lines) if want in ln) for want in EXPECTED[-3:]]
    assert at[0] < at[1] < lines.index("good: ok") < at[2], r.stdout  # src, good, down
    assert r.stderr == "" and "Traceback" not in r.stdout

    r = rk.syncpoint(cfg, "validate", "--json")
    assert r.returncode == 2
    doc = json.loads(r.stdout)
    assert doc["ok"] is False
    found = doc["config"] + [f"{loc}: {p}" for loc, ps in doc["problems"].items() for p in ps]
    assert len(found) == len(EXPECTED)
    assert pg_db.query("SELECT count(*) FROM pg_class") == before  # nothing installed
