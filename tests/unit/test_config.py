"""Configuration: what docs/config.md accepts and the clear messages for what it refuses."""

from __future__ import annotations

from pathlib import Path

import pytest

from syncpoint import config
from syncpoint.errors import ConfigError

BASE = {
    "channel": "shop",
    "locations": {
        "dec01": {"url": "postgresql://app@127.0.0.1:5432/east", "capture": True},
        "cen": {"url": "sqlite:///tmp/cen.db", "integrate": True},
    },
    "tables": [{"name": "public.orders"}, {"name": "public.customers", "actions": "ui"}],
    "sync_groups": {"T1": ["orders", "customers"]},
}


def problems(data: dict) -> list[str]:
    with pytest.raises(ConfigError) as info:
        config.from_dict(data, "f.yaml")
    return info.value.problems


def test_valid_config_loads_with_defaults() -> None:
    cfg = config.from_dict(BASE)
    assert cfg.prefix == "repl_"
    assert cfg.tables[0].actions == "IUD"
    assert cfg.tables[1].actions == "IU"
    assert str(cfg.tables[0].ref) == "public.orders"
    assert [t.name for t in cfg.groups()["T1"]] == ["public.orders", "public.customers"]


@pytest.mark.parametrize(
    "patch, expected",
    [
        ({"prefix": "Repl_"}, "f.yaml: prefix: 'Repl_' is not a plain lowercase name"),
        ({"prefix": "x'--"}, 'f.yaml: prefix: "x\'--" is not a plain lowercase name'),
        ({"channel": "shop; drop"}, "f.yaml: channel: 'shop; drop' is not a plain lowercase"),
        ({"colour": "red"}, "f.yaml: colour: unknown key"),
        ({"sync_groups": {"G": ["nope"]}}, "f.yaml: sync_groups: G: 'nope' is not a replicated"),
    ],
)
def test_refusals_name_file_and_key(patch: dict, expected: str) -> None:
    found = problems({**BASE, **patch})
    assert any(p.startswith(expected) for p in found), found


def test_location_without_role_and_bad_scheme() -> None:
    data = {
        **BASE,
        "locations": {
            "a": {"url": "oracle://x", "capture": True},
            "c": {"url": "sqlite:///c.db"},
            "B": {"url": "sqlite:///x.db", "capture": True},
        },
    }
    found = problems(data)
    assert any("locations.a.url: URL scheme 'oracle'" in p for p in found), found
    assert any("locations.c: a location needs a role" in p for p in found), found
    assert any("'B' is not a plain lowercase name" in p for p in found), found


def test_bad_actions_and_key() -> None:
    data = {**BASE, "tables": [{"name": "t", "actions": "IX"}, {"name": "u", "key": []}]}
    found = problems(data)
    assert any("tables[0] (t).actions" in p and "subset of I, U, D" in p for p in found), found
    assert any("tables[1] (u).key" in p for p in found), found


def test_env_expansion_and_secret_hidden(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CEN_PW", "s3cret")
    data = {
        **BASE,
        "locations": {
            **BASE["locations"],
            "w": {"url": "postgresql://etl:${CEN_PW}@127.0.0.1/w", "integrate": True},
        },
    }
    cfg = config.from_dict(data)
    loc = cfg.locations["w"]
    assert loc.url.get_secret_value() == "postgresql://etl:s3cret@127.0.0.1/w"
    assert "s3cret" not in repr(cfg) and "s3cret" not in repr(loc)
    assert loc.redacted == "postgresql://etl:***@127.0.0.1/w"


def test_missing_env_var_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NOPE_PW", raising=False)
    data = {**BASE, "locations": {"a": {"url": "postgresql://u:${NOPE_PW}@h/d", "capture": True}}}
    assert problems(data) == ["f.yaml: locations.a.url: environment variable NOPE_PW is not set"]


@pytest.mark.parametrize(
    "text, schema, name",
    [
        ("orders", None, "orders"),
        ("public.orders", "public", "orders"),
        ('"my.schema"."Or""der"', "my.schema", 'Or"der'),
        ("s.a.b", "s", "a.b"),
        ("t; DROP TABLE x", None, "t; DROP TABLE x"),
    ],
)
def test_table_names_parse(text: str, schema: str | None, name: str) -> None:
    ref = config.parse_table_name(text)
    assert (ref.schema_, ref.name) == (schema, name)


def test_load_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such configuration file"):
        config.load(tmp_path / "none.yaml")


def test_example_file_is_valid(monkeypatch: pytest.MonkeyPatch) -> None:
    from importlib import resources

    import yaml

    monkeypatch.setenv("PG_PASSWORD", "x")
    text = resources.files("syncpoint").joinpath("example.yaml").read_text()
    cfg = config.from_dict(yaml.safe_load(text))
    assert cfg.channel == "shop"


def test_a_yaml_error_names_the_file_and_line(tmp_path: Path) -> None:
    f = tmp_path / "sp.yaml"
    f.write_text("channel: shop\nlocations:\n  a: {url: x\n  b: y: z\n", encoding="utf-8")
    with pytest.raises(ConfigError) as e:
        config.load(f)
    text = str(e.value)
    assert "<unicode string>" not in text and text.startswith(f"{f}, line 4, column"), text
    assert "not valid YAML" in text


def _sites(reads: dict[str, list[str] | None], capture_only: tuple[str, ...] = ()) -> dict:
    locs: dict = {
        n: {"url": f"sqlite:///tmp/{n}.db", "capture": True, "integrate": True}
        | ({"from": r} if r is not None else {})
        for n, r in reads.items()
    }
    locs.update({n: {"url": f"sqlite:///tmp/{n}.db", "capture": True} for n in capture_only})
    return {"channel": "bi", "locations": locs, "tables": [{"name": "t"}]}


def test_from_lets_a_site_read_some_locations_and_forwards_the_others() -> None:
    ring = config.from_dict(_sites({"a": ["c"], "b": ["a"], "c": ["b"]}))
    assert {(i, s): ring.origins_via(i, s) for i in "abc" for s in ring.sources_of(i)} == {
        ("a", "c"): ["b", "c"],
        ("b", "a"): ["a", "c"],
        ("c", "b"): ["a", "b"],
    }
    mesh = config.from_dict(_sites({"a": None, "b": None, "c": None}))
    assert mesh.sources_of("a") == ["b", "c"] and mesh.origins_via("a", "b") == ["b"]
    # two equally short ways from a to d: the one through the smaller name, only
    diamond = config.from_dict(_sites({"a": None, "b": ["a"], "c": ["a"], "d": ["c", "b"]}))
    assert diamond.origins_via("d", "b") == ["a", "b"] and diamond.origins_via("d", "c") == ["c"]
    # a location that only captures passes nothing on
    spoke = config.from_dict(_sites({"b": ["x"], "c": ["b"]}, capture_only=("x",)))
    assert spoke.origins_via("c", "b") == ["b", "x"]


def test_from_names_capture_locations_other_than_itself_once() -> None:
    data = _sites({"a": ["a", "nope", "b", "b"], "b": None}, capture_only=("x",))
    data["locations"]["x"]["from"] = ["a"]
    found = problems(data)
    assert "f.yaml: locations: a: from: a location never reads itself" in found
    assert "f.yaml: locations: a: from: 'nope' is not a capture location" in found
    assert "f.yaml: locations: a: from: a location is named twice" in found
    assert "f.yaml: locations: x: from: is for a location that integrates" in found


def test_capture_kind_log_or_trigger() -> None:
    data = {**BASE, "locations": {**BASE["locations"]}}
    data["locations"]["dec01"] = {**BASE["locations"]["dec01"], "capture": "log"}
    cfg = config.from_dict(data)
    assert cfg.locations["dec01"].capture_kind == "log"
    assert cfg.locations["cen"].capture_kind == "trigger"
    data["locations"]["dec01"]["capture"] = "trigger"
    assert config.from_dict(data).locations["dec01"].capture_kind == "trigger"
    data["locations"]["dec01"]["capture"] = "wal"
    assert any("capture" in p for p in problems(data))


def test_sqlite_has_no_log_to_capture_from() -> None:
    data = {**BASE, "locations": {**BASE["locations"]}}
    data["locations"]["lite"] = {"url": "sqlite:///tmp/a.db", "capture": "log"}
    assert any("SQLite has no log" in p for p in problems(data))


def test_conflict_resolution_is_refused_at_a_log_captured_site() -> None:
    data = {
        "channel": "two",
        "locations": {
            "a": {"url": "postgresql://app@127.0.0.1:5432/a", "capture": "log", "integrate": True},
            "b": {"url": "mysql://root@127.0.0.1:3306/b", "capture": True, "integrate": True},
        },
        "tables": [{"name": "public.t"}],
        "conflicts": {"t": {"resolution": "latest"}},
    }
    (p,) = [p for p in problems(data) if "conflicts:" in p]
    assert "location a captures from the log" in p and "capture: true" in p
    data["locations"]["a"]["capture"] = True
    config.from_dict(data)


def test_earliest_is_refused_where_the_sites_of_a_table_form_a_loop() -> None:
    """Under ``earliest`` a change that reaches a site before the change it was made from
    would lose to the older version there: only sites joined without a loop take it."""

    def earliest(reads: dict[str, list[str] | None], **kw: object) -> dict:
        data = _sites(reads, **kw)  # type: ignore[arg-type]
        data["conflicts"] = {"t": {"resolution": "earliest"}}
        return data

    (p,) = problems(earliest({"a": ["c"], "b": ["a"], "c": ["b"]}))
    assert p == (
        "f.yaml: conflicts: t: resolution earliest needs sites joined without a loop (a pair, "
        "a chain, a star), but a, b and c form one (their from: lists): a change can then "
        "reach a site before the change it was made from, which earliest would keep there, "
        "and the sites would differ. Use latest"
    )
    (p,) = problems(earliest({"a": None, "b": None, "c": None}))  # a mesh
    assert "but a, b and c form one" in p
    four = {"a": ["b"], "b": ["a", "c"], "c": ["b", "d"], "d": ["c", "b"]}
    (p,) = problems(earliest(four))
    assert "but b, c and d form one" in p
    # a pair, a chain, a star, a site that only captures feeding two: no loop
    for reads, only in [
        ({"a": None, "b": None}, ()),
        ({"a": ["b"], "b": ["a", "c"], "c": ["b"]}, ()),
        ({"hub": ["a", "b", "c"], "a": ["hub"], "b": ["hub"], "c": ["hub"]}, ()),
        ({"a": ["x", "b"], "b": ["x", "a"]}, ("x",)),
    ]:
        cfg = config.from_dict(earliest(reads, capture_only=only))
        assert cfg.cycle(cfg.tables[0]) is None, reads
    # latest is fine in a ring
    config.from_dict(_sites({"a": ["c"], "b": ["a"], "c": ["b"]}))
