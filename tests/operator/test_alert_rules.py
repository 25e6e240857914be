"""The shipped alert rules (deploy/prometheus/syncpoint-rules.yml): a valid Prometheus
rules file (``promtool check rules``, and a parser of its structure), whose unit tests
(``promtool test rules``: each alert firing on a dead follower, a target outage, rounds
failing longer than a blip, a stopped table, lag, a growing log, and resolving after) pass;
every metric and ``by`` label they and the Grafana dashboard beside them name is one
syncpoint exports (tests/operator/test_outage_probe.py checks the live endpoint too)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import yaml
from prometheus_client.parser import text_string_to_metric_families

from syncpoint.config import ChannelConfig
from syncpoint.observe.metrics import Metrics

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "operations.md"
DEPLOY = ROOT / "deploy" / "prometheus"
RULES = DEPLOY / "syncpoint-rules.yml"
RULE_TESTS = DEPLOY / "syncpoint-rules.test.yml"
DASHBOARD = DEPLOY / "syncpoint-dashboard.json"
DURATION = re.compile(r"^\d+[smhdwy]$")


def rule_metrics(path: Path) -> set[str]:
    """Every metric a rules file's expressions name."""
    doc = yaml.safe_load(path.read_text("utf-8"))
    return {
        m
        for group in doc["groups"]
        for rule in group["rules"]
        for m in re.findall(r"\b(syncpoint_[a-z_]+|up)\b", rule["expr"])
    }


def exported() -> dict[str, set[str]]:
    """Every sample name syncpoint exports, with its label names."""
    cfg = ChannelConfig.model_validate(
        {
            "channel": "shop",
            "locations": {
                "src": {"url": "sqlite:///a.db", "capture": "trigger"},
                "cen": {"url": "sqlite:///b.db", "integrate": True},
            },
            "tables": [{"name": "t"}],
        }
    )
    m = Metrics("shop", exporter="follower")
    m.declare(cfg, rounds=True)
    row = {"location": "src", "table": "t", "position": 1, "stream_id": "s", "backlog": 0}
    log = {"retained_bytes": 1, "unread_bytes": 1, "age_seconds": 1}
    m.update(
        {
            "capture": {"src": {"pending": 0, "log": log}},
            "integrate": {"cen": {"tables": [{**row, "lag_seconds": 0.0, "stopped": None}]}},
            "receive_stamps": {"cen": {"locations": {"src": {"age_seconds": 1.0}}}},
            "gates": {"cen": [{"gate": "g", "state": "WarehouseLoaded", "age_s": 1}]},
            "conflicts": {"cen": {"total": 0}},
            "warnings": [{"kind": "unreachable"}],
            "followers": {"cen": {"running": True, "holder": "h pid 1"}},
        }
    )
    m.observe_round({"integrate": "cen", "group": "t", "changes": 1, "applied": 1, "seconds": 1})
    out: dict[str, set[str]] = {}
    for fam in text_string_to_metric_families(m.render().decode()):
        for s in fam.samples:
            out.setdefault(s.name, set()).update(s.labels)
    return out


def test_the_rules_are_valid_fire_and_resolve_and_name_exported_metrics() -> None:
    doc = yaml.safe_load(RULES.read_text("utf-8"))
    names = exported()
    names["up"] = {"job", "instance"}  # Prometheus's own, per scrape target
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
            used = re.findall(r"\b(syncpoint_[a-z_]+|up)\b", expr)
            assert used, expr
            for metric in used:
                assert metric in names, f"{rule['alert']}: {metric} is not exported"
                for by in re.findall(r"\bby \(([^)]*)\)", expr):
                    labels = {b.strip() for b in by.split(",")}
                    assert labels <= names[metric], (rule["alert"], labels - names[metric])
            for v in (rule.get("annotations") or {}).values():
                check_balanced(v.replace("{{", "(").replace("}}", ")"))
    wanted = (
        "SyncpointFollowerDown",
        "SyncpointFollowerAbsent",
        "SyncpointLocationDown",
        "SyncpointRoundsFailing",
        "SyncpointTableStopped",
        "SyncpointLagging",
        "SyncpointLogGrowing",
    )
    assert set(wanted) <= set(alerts)
    # each of them has unit tests that see it fire
    tested = {t["alertname"] for c in yaml.safe_load(RULE_TESTS.read_text())["tests"]
              for t in c["alert_rule_test"] if t["exp_alerts"]}  # fmt: skip
    assert set(alerts) <= tested, set(alerts) - tested
    promtool = shutil.which("promtool")
    assert promtool, "promtool is missing: make deps installs Debian's prometheus package"
    for args in (["check", "rules", str(RULES)], ["test", "rules", str(RULE_TESTS)]):
        done = subprocess.run([promtool, *args], capture_output=True, text=True, cwd=DEPLOY)
        assert done.returncode == 0, done.stdout + done.stderr
    assert "deploy/prometheus/syncpoint-rules.yml" in DOC.read_text("utf-8")


def test_the_dashboard_draws_exported_metrics() -> None:
    dash = json.loads(DASHBOARD.read_text("utf-8"))
    names = exported()
    exprs = [t["expr"] for p in dash["panels"] for t in p["targets"]]
    assert exprs
    for expr in exprs:
        check_balanced(expr)
        for metric in re.findall(r"\bsyncpoint_[a-z_]+\b", expr):
            assert metric in names, f"{metric} is not exported"


def check_balanced(text: str) -> None:
    stack: list[str] = []
    pairs: Any = {")": "(", "]": "[", "}": "{"}
    for c in text:
        if c in "([{":
            stack.append(c)
        elif c in pairs:
            assert stack and stack.pop() == pairs[c], text
    assert not stack, text
