"""The channel configuration (docs/config.md): pydantic models, YAML loading, ``${VAR}``
expansion.

Everything here is checked before any connection is opened. A problem is reported as
``FILE: key.path: what is wrong`` (exit 2). Passwords are never shown: a location's URL is
kept as a secret and only its redacted form appears in ``repr``, logs and output.
"""

from __future__ import annotations

import functools
import os
import re
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit, urlunsplit

import yaml
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    TypeAdapter,
    ValidationError,
    field_validator,
    model_validator,
)

from syncpoint.core import cdr
from syncpoint.errors import ConfigError

DEFAULT_FILE = "syncpoint.yaml"

# Names that reach object names (prefix, channel, location) must be plain so that every
# derived object name stays within every vendor's identifier length (PostgreSQL: 63 bytes).
_PLAIN = re.compile(r"^[a-z][a-z0-9_]*$")
SCHEMES = {
    "postgresql": "postgres",
    "postgres": "postgres",
    "mysql": "mariadb",
    "mariadb": "mariadb",
    "sqlite": "sqlite",
}


def _plain(max_len: int):
    def check(value: str) -> str:
        if not _PLAIN.match(value):
            raise ValueError(
                f"{value!r} is not a plain lowercase name (a letter, then letters, digits, _)"
            )
        if len(value) > max_len:
            raise ValueError(f"{value!r} is longer than {max_len} characters")
        return value

    return check


PlainName = Annotated[str, AfterValidator(_plain(20))]
Prefix = Annotated[str, AfterValidator(_plain(16))]


def redact_url(url: str) -> str:
    """The URL with any password replaced by ``***``."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<unparseable url>"
    if parts.password is None:
        return url
    netloc = parts.netloc.rsplit("@", 1)
    userinfo = netloc[0].split(":", 1)[0]
    return urlunsplit(parts._replace(netloc=f"{userinfo}:***@{netloc[1]}"))


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class LocationConfig(_Model):
    url: SecretStr
    # true (or ``trigger``): a capture trigger per table writes the change queue; ``log``: the
    # database's own log (PostgreSQL logical decoding, MariaDB's binary log) is decoded into
    # the same queue, so the application's writes pay nothing on their commit path
    capture: bool | Literal["trigger", "log"] = False
    integrate: bool = False
    # the capture locations an integrate location reads from (default: every other one);
    # a ring or another topology than the full mesh says it here
    from_: list[str] | None = Field(default=None, alias="from")

    @field_validator("url")
    @classmethod
    def _known_scheme(cls, v: SecretStr) -> SecretStr:
        raw = v.get_secret_value()
        scheme = raw.split("://", 1)[0].lower() if "://" in raw else ""
        if scheme not in SCHEMES:
            raise ValueError(
                f"URL scheme {scheme or '(none)'!r} is not one of "
                "postgresql://, mysql://, mariadb://, sqlite:///path"
            )
        if SCHEMES[scheme] == "sqlite" and not raw.startswith("sqlite:///"):
            raise ValueError("a SQLite URL is sqlite:///path/to/file.db")
        return v

    @model_validator(mode="before")
    @classmethod
    def _has_role(cls, data: Any) -> Any:
        if isinstance(data, dict) and not (data.get("capture") or data.get("integrate")):
            raise ValueError("a location needs a role: capture: true and/or integrate: true")
        return data

    @property
    def vendor(self) -> str:
        return SCHEMES[self.url.get_secret_value().split("://", 1)[0].lower()]

    @property
    def capture_kind(self) -> str:
        """``log`` or ``trigger`` (also for a location that does not capture)."""
        return "log" if self.capture == "log" else "trigger"

    @property
    def redacted(self) -> str:
        return redact_url(self.url.get_secret_value())

    def __repr__(self) -> str:
        return (
            f"LocationConfig(url={self.redacted!r}, capture={self.capture}, "
            f"integrate={self.integrate})"
        )


class TableName(_Model):
    """A table reference: ``schema`` is None where the vendor or the user gives none."""

    schema_: str | None = Field(default=None, alias="schema")
    name: str

    @property
    def short(self) -> str:
        return self.name

    def __str__(self) -> str:
        return f"{self.schema_}.{self.name}" if self.schema_ else self.name


@functools.lru_cache(maxsize=8192)
def parse_table_name(text: str) -> TableName:
    """``schema.table`` or ``table``; either part may be written in double quotes to
    contain dots (``"my.schema"."t"``). The name is never pasted into SQL. Remembered
    (a ``TableName`` is frozen): a channel of hundreds of tables asks for the same names
    in every round."""
    parts: list[str] = []
    i, n = 0, len(text)
    while i < n:
        if text[i] == '"':
            j, buf = i + 1, []
            while j < n:
                if text[j] == '"':
                    if j + 1 < n and text[j + 1] == '"':
                        buf.append('"')
                        j += 2
                        continue
                    break
                buf.append(text[j])
                j += 1
            else:
                raise ValueError(f"unterminated quote in table name {text!r}")
            parts.append("".join(buf))
            i = j + 1
            if i < n and text[i] != ".":
                raise ValueError(f"unexpected text after a quoted part in {text!r}")
            i += 1
        else:
            j = text.find(".", i)
            if j < 0 or len(parts) == 1:
                parts.append(text[i:])
                break
            parts.append(text[i:j])
            i = j + 1
    if not parts or any(p == "" for p in parts) or len(parts) > 2:
        raise ValueError(f"{text!r} is not a table name (table or schema.table)")
    if len(parts) == 1:
        return TableName(name=parts[0])
    return TableName(schema=parts[0], name=parts[1])


Actions = Annotated[str, AfterValidator(lambda v: _check_actions(v))]


def _check_actions(value: str) -> str:
    letters = value.upper()
    if not letters or any(c not in "IUD" for c in letters) or len(set(letters)) != len(letters):
        raise ValueError(f"actions {value!r} must be a non-empty subset of I, U, D")
    return "".join(c for c in "IUD" if c in letters)


class TableConfig(_Model):
    name: str
    actions: Actions = "IUD"
    key: list[str] | None = None
    target: str | None = None
    ddl_policy: Literal["stop", "apply", "ignore"] = "stop"
    debug: bool = False
    locations: list[str] | None = None
    # "required": rounds start only after `syncpoint snapshot` loaded the table's existing
    # rows; "none": the table starts empty, rounds may start at once
    snapshot: Literal["required", "none"] = "required"
    snapshot_partition: str | None = None  # the column a snapshot splits on (default: key)

    @field_validator("name", "target")
    @classmethod
    def _parses(cls, v: str | None) -> str | None:
        if v is not None:
            parse_table_name(v)
        return v

    @field_validator("key")
    @classmethod
    def _key(cls, v: list[str] | None) -> list[str] | None:
        if v is not None and (not v or len(set(v)) != len(v) or any(not c for c in v)):
            raise ValueError("key must be a non-empty list of distinct column names")
        return v

    @property
    def ref(self) -> TableName:
        return parse_table_name(self.name)

    @property
    def target_ref(self) -> TableName:
        return parse_table_name(self.target) if self.target else self.ref


class ConflictConfig(_Model):
    resolution: Literal["latest", "earliest"] = "latest"
    column_groups: dict[str, list[str]] = {}


class SparkConfig(_Model):
    master: str = "local[*]"
    conf: dict[str, str] = {}
    jars: list[str] | None = None  # None: Debian's JDBC driver jars
    packages: list[str] = []  # Maven coordinates, where Maven can be reached
    # a round of at most this many change records is netted and staged by the driver
    # itself (the same rule), without a Spark job; 0: every round through Spark
    driver_round_max: int = Field(default=20_000, ge=0)
    # how executors write a round's staging at a target with a bulk path (PostgreSQL's
    # COPY): auto = with a local master, whose executors run syncpoint's own interpreter
    stage_copy: Literal["auto", "always", "never"] = "auto"
    # the driver JVM's classes kept in a class-data archive in the user's cache (faster
    # starts; about 150-200 MB)
    class_cache: bool = True


class TransportConfig(_Model):
    """Transport tables loaded by ``run`` as the consumer side of a gate (docs/recipes.md)."""

    gate: PlainName
    location: str
    tables: list[str]


class WarningsConfig(_Model):
    """When ``status`` (and ``serve``) warn: thresholds in seconds and change records."""

    not_integrated_s: float = Field(default=3600.0, gt=0)  # a capture location's receive stamp age
    gate_loading_s: float = Field(default=3600.0, gt=0)  # a gate held in a Loading state
    queue_rows: int = Field(default=1_000_000, gt=0)  # change records waiting at a capture location
    # log capture: the database's log kept for a capture location (bytes, age of its position)
    retained_log_bytes: int = Field(default=10 * 2**30, gt=0)
    retained_log_s: float = Field(default=86400.0, gt=0)


class ChannelConfig(_Model):
    channel: PlainName
    application: PlainName = "default"
    prefix: Prefix = "repl_"
    locations: dict[str, LocationConfig]
    tables: list[TableConfig] = []
    sync_groups: dict[str, list[str]] = {}
    conflicts: dict[str, ConflictConfig] = {}
    spark: SparkConfig = SparkConfig()
    transport: TransportConfig | None = None
    warnings: WarningsConfig = WarningsConfig()
    # target tables syncpoint creates get the foreign keys among the channel's tables (where
    # the target vendor can add them): such a target then needs the tables in sync groups
    create_foreign_keys: bool = True

    @field_validator("locations", mode="before")
    @classmethod
    def _location_names(cls, v: Any) -> Any:
        if isinstance(v, dict):
            if not v:
                raise ValueError("at least one location is needed")
        return v

    @model_validator(mode="after")
    def _cross_checks(self) -> ChannelConfig:
        problems = cross_problems(self)
        if problems:
            raise ValueError("\n".join(problems))
        return self

    def _find(self, name: str) -> TableConfig | None:
        return _names_of(self.tables).get(name)

    def table(self, name: str) -> TableConfig:
        t = self._find(name)
        if t is None:
            raise ConfigError(f"table {name!r} is not replicated by channel {self.channel}")
        return t

    def capture_locations(self) -> dict[str, LocationConfig]:
        return {n: loc for n, loc in self.locations.items() if loc.capture}

    def integrate_locations(self) -> dict[str, LocationConfig]:
        return {n: loc for n, loc in self.locations.items() if loc.integrate}

    def sources_of(self, integrate: str) -> list[str]:
        """The capture locations ``integrate`` reads from: its ``from:`` list, or every
        capture location but itself."""
        loc = self.locations[integrate]
        if loc.from_ is not None:
            return list(loc.from_)
        return [n for n in self.capture_locations() if n != integrate]

    def route(self, origin: str, site: str, table: str) -> list[str] | None:
        """The sites a change of ``table`` made at ``origin`` passes on its way to ``site``
        (``origin`` first, ``site`` last), or None when ``site`` never takes ``origin``'s
        changes."""
        conf = next((t for t in self.tables if table in (t.name, str(t.ref))), None)
        path = [site]
        while path[0] != origin:
            via = [
                s for s in self.sources_of(path[0]) if origin in self.origins_via(path[0], s, conf)
            ]
            if not via or via[0] in path:
                return None
            path.insert(0, via[0])
        return path

    def origins_via(
        self, integrate: str, source: str, table: TableConfig | None = None
    ) -> list[str]:
        """The locations whose changes ``integrate`` takes from ``source``'s stream: ``source``
        itself and those ``source`` forwards because it is their way here (a change first
        made at ``integrate`` is never among them)."""
        return [o for o, via in self._last_hops(integrate, table).items() if via == source]

    def _last_hops(self, integrate: str, table: TableConfig | None) -> dict[str, str]:
        """Origin -> the location ``integrate`` takes its changes from: the last step of the
        shortest way from the origin, through locations that integrate and capture ``table``
        (so they pass changes on), the smallest name first among equally short ones."""
        captures = {
            n
            for n in self.capture_locations()
            if table is None or table.locations is None or n in table.locations
        }
        readers = {n: set(self.sources_of(n)) for n in sorted(self.integrate_locations())}
        out: dict[str, str] = {}
        for origin in sorted(captures - {integrate}):
            last: dict[str, str] = {}
            frontier, seen = [origin], {origin}
            while frontier and integrate not in last:
                step = []
                for x in sorted(frontier):
                    if x != origin and x not in captures:
                        continue  # receives the change but does not capture it: no further
                    for y, reads in readers.items():
                        if y not in seen and x in reads:
                            last[y] = x
                            seen.add(y)
                            step.append(y)
                frontier = step
            if integrate in last:
                out[origin] = last[integrate]
        return out

    def cycle(self, table: TableConfig) -> list[str] | None:
        """Sites of ``table`` (those that capture and integrate it, so pass changes on)
        joined in a loop by who reads whom, each once, in order: a ring, or three sites of
        a mesh. None where the sites form a tree (one pair, a chain, a star), the only
        topologies in which every change reaches every site by one way, in the order it
        was made in. (A pair reading each other is one link, not a loop.)"""
        sites = sorted(
            n
            for n, loc in self.locations.items()
            if loc.capture and loc.integrate and (table.locations is None or n in table.locations)
        )
        links: dict[str, set[str]] = {n: set() for n in sites}
        for n in sites:
            for s in self.sources_of(n):
                if s in links and s != n:
                    links[n].add(s)
                    links[s].add(n)
        # sites with one link or none are on no loop: take them away until none is left
        ends = [n for n in sites if len(links[n]) <= 1]
        while ends:
            n = ends.pop()
            for m in links.pop(n, set()):
                links[m].discard(n)
                if len(links[m]) == 1:
                    ends.append(m)
        if not links:
            return None
        # every site left has two links or more among those left: walking on without going
        # back comes to a site it passed
        path, came = [min(links)], ""
        while True:
            here = path[-1]
            nxt = min(m for m in links[here] if m != came)
            if nxt in path:
                return path[path.index(nxt) :]
            came = here
            path.append(nxt)

    def tables_at(self, location: str) -> list[TableConfig]:
        """The tables captured at ``location``."""
        return [t for t in self.tables if t.locations is None or location in t.locations]

    def groups(self) -> dict[str, list[TableConfig]]:
        """Sync groups with their tables; each table outside any group is a group of its own."""
        out: dict[str, list[TableConfig]] = {}
        grouped: set[str] = set()
        for g, members in self.sync_groups.items():
            out[g] = [self.table(m) for m in members]
            grouped.update(str(t.ref) for t in out[g])
        for t in self.tables:
            if str(t.ref) not in grouped:
                out[t.ref.short] = [t]
        return out


# the tables of a configuration by each name they go by, the first table of the list
# first (a lookup per table of a channel of hundreds was a search of the list each time)
_NAMES: dict[int, tuple[list[TableConfig], int, dict[str, TableConfig]]] = {}


def _names_of(tables: list[TableConfig]) -> dict[str, TableConfig]:
    known = _NAMES.get(id(tables))
    if known is not None and known[0] is tables and known[1] == len(tables):
        return known[2]
    index: dict[str, TableConfig] = {}
    for t in tables:
        for name in (t.name, str(t.ref), t.ref.short):
            index.setdefault(name, t)
    if len(_NAMES) > 64:
        _NAMES.clear()
    _NAMES[id(tables)] = (tables, len(tables), index)
    return index


def cross_problems(cfg: ChannelConfig) -> list[str]:
    """What is wrong between the parts of a configuration (each part valid on its own)."""
    problems: list[str] = []
    for t in cfg.tables:
        for loc in t.locations or []:
            if loc not in cfg.locations or not cfg.locations[loc].capture:
                problems.append(f"tables: {t.name}: locations: {loc!r} is not a capture location")
    for name, site in cfg.locations.items():
        if site.from_ is None:
            continue
        if not site.integrate:
            problems.append(f"locations: {name}: from: is for a location that integrates")
        if not site.from_:
            problems.append(f"locations: {name}: from: names no location")
        for src in site.from_:
            if src == name:
                problems.append(f"locations: {name}: from: a location never reads itself")
            elif src not in cfg.locations or not cfg.locations[src].capture:
                problems.append(f"locations: {name}: from: {src!r} is not a capture location")
        if len(set(site.from_)) != len(site.from_):
            problems.append(f"locations: {name}: from: a location is named twice")
    for lname, lc in cfg.locations.items():
        if lc.capture_kind == "log" and lc.vendor == "sqlite":
            problems.append(
                f"locations: {lname}: capture: log: SQLite has no log to read; "
                "use capture: true (triggers)"
            )
    seen: set[str] = set()
    for t in cfg.tables:
        if str(t.ref) in seen:
            problems.append(f"tables: {t.name!r} is listed twice")
        seen.add(str(t.ref))
    for group, members in cfg.sync_groups.items():
        if not members:
            problems.append(f"sync_groups: {group}: the group is empty")
        for m in members:
            if not cfg._find(m):
                problems.append(
                    f"sync_groups: {group}: {m!r} is not a replicated table of this channel"
                )
    both = [n for n, loc in cfg.locations.items() if loc.capture and loc.integrate]
    for tname, cc in cfg.conflicts.items():
        found = cfg._find(tname)
        if not found:
            problems.append(f"conflicts: {tname!r} is not a replicated table of this channel")
            continue
        sites = [n for n in both if found.locations is None or n in found.locations]
        if len(sites) < 2:
            problems.append(
                f"conflicts: {tname}: the table is captured and integrated at {len(sites)} "
                "location(s); conflicts arise only between two or more"
            )
        for site_name in sites:
            if cfg.locations[site_name].capture_kind == "log":
                # the versions conflict resolution compares are written by its triggers in
                # the row's own transaction; a log reader sees the row only after commit
                problems.append(
                    f"conflicts: {tname}: location {site_name} captures from the log "
                    "(capture: log); conflict resolution needs trigger capture at every "
                    "site of the table: use capture: true there"
                )
        groups = cdr.check_groups(tname, cc.column_groups, None, found.key)
        problems += [f"conflicts: {p}" for p in groups]
        if cc.resolution == "earliest":
            loop = cfg.cycle(found)
            if loop:
                problems.append(f"conflicts: {tname}: {earliest_in_a_loop(loop)}")
    if cfg.transport and cfg.transport.location not in cfg.locations:
        problems.append(f"transport: location {cfg.transport.location!r} is not defined")
    return problems


def earliest_in_a_loop(loop: list[str]) -> str:
    """Why ``earliest`` is refused where the sites of a table form a loop (``cycle``)."""
    names = ", ".join(loop[:-1]) + " and " + loop[-1]
    return (
        f"resolution earliest needs sites joined without a loop (a pair, a chain, a star), "
        f"but {names} form one (their from: lists): a change can then reach a site before "
        "the change it was made from, which earliest would keep there, and the sites would "
        "differ. Use latest"
    )


_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def _expand(value: Any, path: str, source: str, problems: list[str]) -> Any:
    if isinstance(value, str):

        def sub(m: re.Match[str]) -> str:
            name = m.group(1)
            if name not in os.environ:
                problems.append(f"{source}: {path}: environment variable {name} is not set")
                return ""
            return os.environ[name]

        return _VAR.sub(sub, value)
    if isinstance(value, dict):
        return {
            k: _expand(v, f"{path}.{k}" if path else str(k), source, problems)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_expand(v, f"{path}[{i}]", source, problems) for i, v in enumerate(value)]
    return value


def _loc(err_loc: tuple[Any, ...], data: Any) -> str:
    """A readable key path; list indexes of tables are shown with the table's name."""
    out: list[str] = []
    cur = data
    for part in err_loc:
        if isinstance(part, int):
            label = f"[{part}]"
            if isinstance(cur, list) and part < len(cur) and isinstance(cur[part], dict):
                name = cur[part].get("name")
                if name:
                    label = f"[{part}] ({name})"
            out.append(label)
            cur = cur[part] if isinstance(cur, list) and part < len(cur) else None
        else:
            out.append(("." if out else "") + str(part))
            cur = cur.get(part) if isinstance(cur, dict) else None
    return "".join(out)


def from_dict(data: Any, source: str = "<config>") -> ChannelConfig:
    cfg, problems = check_dict(data, source)
    if problems or cfg is None:
        raise ConfigError(f"{source}: configuration is invalid", problems)
    return cfg


def check_dict(data: Any, source: str = "<config>") -> tuple[ChannelConfig | None, list[str]]:
    """Every problem of the file, and a configuration to go on checking with: the whole
    one when there is no problem; else the parts that are valid on their own (None when
    not even that can be made), so that ``validate`` still connects and checks them."""
    problems: list[str] = []
    if not isinstance(data, dict):
        return None, [f"{source}: the file must hold a mapping of keys"]
    data = _expand(data, "", source, problems)
    locs = data.get("locations")
    if isinstance(locs, dict):
        for name in locs:
            try:
                _plain(20)(str(name))
            except ValueError as exc:
                problems.append(f"{source}: locations: location name {exc}")
    try:
        cfg = ChannelConfig.model_validate(data)
        return (None if problems else cfg), problems
    except ValidationError as exc:
        for e in exc.errors():
            msg = e["msg"].removeprefix("Value error, ")
            if e["type"] == "extra_forbidden":
                msg = "unknown key"
            elif e["type"] == "missing":
                msg = "required key is missing"
            where = _loc(tuple(e["loc"]), data)
            if any(p.startswith(f"{source}: {where}: environment variable") for p in problems):
                continue  # the unset variable is the problem, not the empty value
            for one in msg.split("\n"):
                problems.append(f"{source}: {where}: {one}" if where else f"{source}: {one}")
    part = _valid_parts(data)
    if part is not None:
        for p in cross_problems(part):
            if f"{source}: {p}" not in problems:
                problems.append(f"{source}: {p}")
    return part, problems


def _valid_parts(data: dict[str, Any]) -> ChannelConfig | None:
    """A configuration of the parts of ``data`` that are valid on their own (unchecked
    across parts: ``cross_problems`` lists what is wrong between them)."""
    fields: dict[str, Any] = {}
    for name, f in ChannelConfig.model_fields.items():
        if name not in data:
            continue
        value = data[name]
        if name == "locations" and isinstance(value, dict):
            value = {k: v for k, v in value.items() if _ok(LocationConfig, v) and _ok_name(k)}
            fields[name] = {k: LocationConfig.model_validate(v) for k, v in value.items()}
        elif name == "tables" and isinstance(value, list):
            fields[name] = [TableConfig.model_validate(v) for v in value if _ok(TableConfig, v)]
        else:
            hint: Any = f.annotation
            if f.metadata:
                hint = Annotated.__class_getitem__((f.annotation, *f.metadata))  # type: ignore[attr-defined]
            try:
                fields[name] = TypeAdapter(hint).validate_python(value)
            except ValidationError:
                continue
    if not fields.get("locations"):
        return None
    fields.setdefault("channel", "channel")
    return ChannelConfig.model_construct(**fields)


def _ok(model: type[BaseModel], value: Any) -> bool:
    try:
        model.model_validate(value)
        return True
    except ValidationError:
        return False


def _ok_name(name: Any) -> bool:
    try:
        _plain(20)(str(name))
        return True
    except ValueError:
        return False


# libyaml's safe loader where PyYAML has it: the pure Python one took about a millisecond
# a table of a channel file, in every command
_SAFE_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def read_file(path: str | os.PathLike[str] | None = None) -> tuple[Path, Any]:
    """The file's path and its parsed YAML (``ConfigError`` when missing or not YAML)."""
    p = Path(path or DEFAULT_FILE)
    if not p.is_file():
        raise ConfigError(f"{p}: no such configuration file (create one with `syncpoint init`)")
    try:
        return p, yaml.load(p.read_text(encoding="utf-8"), Loader=_SAFE_LOADER)
    except yaml.YAMLError as exc:
        raise ConfigError(_yaml_error(p, exc)) from None


def _yaml_error(p: Path, exc: yaml.YAMLError) -> str:
    """The file and line of a YAML error (PyYAML's own text names "<unicode string>")."""
    mark = getattr(exc, "problem_mark", None)
    if not isinstance(exc, yaml.MarkedYAMLError) or mark is None:
        return f"{p}: not valid YAML: {exc}"
    what = "; ".join(str(x) for x in (exc.context, exc.problem) if x)
    return f"{p}, line {mark.line + 1}, column {mark.column + 1}: not valid YAML: {what}"


def load(path: str | os.PathLike[str] | None = None) -> ChannelConfig:
    """Load and validate a channel file (default ``./syncpoint.yaml``)."""
    p, data = read_file(path)
    return from_dict(data, str(p))
