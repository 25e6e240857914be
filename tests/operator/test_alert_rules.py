"""The example alert rules of docs/operations.md: a valid Prometheus rules file (by
``promtool check rules`` where it is installed, and always by a parser of its structure),
and every metric and ``by`` label they name is one syncpoint exports."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import yaml
from prometheus_client.parser import text_string_to_metric_families

from syncpoint.observe.metrics import Metrics

DOC = Path(__file__).resolve().parents[2] / "docs" / "operations.md"
FENCE = re.compile(r"^```yaml\n(.*?)^```", re.S | re.M)
DURATION = re.compile(r"^\d+[smhdwy]$")


def rules_text() -> str:
    return next(b for b in FENCE.findall(DOC.read_text("utf-8")) if b.startswith("groups:"))


def exported() -> dict[str, set[str]]:
    """Every sample name syncpoint exports, with its label names."""
    m = Metrics("shop", exporter="follower")
    row = {"location": "src", "table": "t", "position": 1, "stream_id": "s", "backlog": 0}
    m.update(
        {
            "capture": {"src": {"pending": 0, "log": {"retained_bytes": 1, "age_seconds": 1}}},
            "integrate": {"cen": {"tables": [{**row, "lag_seconds": 0.0, "stopped": None}]}},
            "receive_stamps": {"cen": {"locations": {"src": {"age_seconds": 1.0}}}},
            "gates": {"cen": [{"gate": "g", "state": "WarehouseLoaded", "age_s": 1}]},
            "conflicts": {"cen": {"total": 0}},
            "warnings": [{"kind": "unreachable"}],
            "followers": {"cen": {"running": True, "holder": "h pid 1"}},
        }
    )
    m.observe_round({"integrate": "cen", "group": "g", "changes": 1, "applied": 1, "seconds": 1})
    m.round_failed("cen", "g")
    out: dict[str, set[str]] = {}
    for fam in text_string_to_metric_families(m.render().decode()):
        for s in fam.samples:
            out.setdefault(s.name, set()).update(s.labels)
    return out


def test_the_example_rules_are_valid_and_name_exported_metrics(tmp_path: Path) -> None:
    text = rules_text()
    doc = yaml.safe_load(text)
    names = exported()
    alerts: list[str] = []
    for group in doc["groups"]:
        assert set(group) <= {"name", "interval", "rules", "limit"} and group["name"]
        for rule in group["rules"]:
            assert set(rule) <= {"alert", "expr", "for", "labels", "annotations"}, rule
            alerts.append(rule["alert"])
            assert re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", rule["alert"])
            assert "for" not in rule or DURATION.match(rule["for"]), rule
            expr: str = rule["expr"]
            check_balanced(expr)
            used = re.findall(r"\bsyncpoint_[a-z_]+\b", expr)
            assert used, expr
            for metric in used:
                assert metric in names, f"{rule['alert']}: {metric} is not exported"
                for by in re.findall(r"\bby \(([^)]*)\)", expr):
                    labels = {b.strip() for b in by.split(",")}
                    assert labels <= names[metric], (rule["alert"], labels - names[metric])
            for v in (rule.get("annotations") or {}).values():
                check_balanced(v.replace("{{", "(").replace("}}", ")"))
    for wanted in ("SyncpointLocationDown", "SyncpointLagging", "SyncpointTableStopped"):
        assert wanted in alerts
    promtool = shutil.which("promtool")
    if promtool:  # Debian's prometheus package has it; the parser above runs everywhere
        f = tmp_path / "rules.yml"
        f.write_text(text, encoding="utf-8")
        done = subprocess.run([promtool, "check", "rules", str(f)], capture_output=True, text=True)
        assert done.returncode == 0, done.stdout + done.stderr


def check_balanced(text: str) -> None:
    stack: list[str] = []
    pairs: Any = {")": "(", "]": "[", "}": "{"}
    for c in text:
        if c in "([{":
            stack.append(c)
        elif c in pairs:
            assert stack and stack.pop() == pairs[c], text
    assert not stack, text
