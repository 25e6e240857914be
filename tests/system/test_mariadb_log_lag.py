"""The lag of a MariaDB location under log capture while no follower drains its binary log
(killed, say): ``status`` reads the binary log from the stored position, without writing,
and counts the commit time of each table's oldest change still waiting there in that
table's lag; a table with nothing waiting shows none. Nothing is written by ``status``:
not the queue, not the stored position, not the binary log."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from syncpoint.ops.channel import Channel
from syncpoint.vendors.mariadb import dialect
from syncpoint.vendors.mariadb.log import binlog
from tests.system import roundkit as rk
from tests.system.test_mariadb_log_rounds import log_config
from tests.vendors.test_mariadb_logcapture import Log, T

WAIT_S = 2.0


def _status(cfg: Path) -> dict[str, Any]:
    st = rk.syncpoint(cfg, "status", "--json")
    assert st.returncode == 0, st.stdout + st.stderr
    return dict(json.loads(st.stdout))


def _lags(doc: dict[str, Any]) -> dict[str, float]:
    return {t["table"]: t["lag_seconds"] for t in doc["integrate"]["cen"]["tables"]}


def _written(src: Any) -> list[Any]:
    """What a write of syncpoint's would change at the source: the queue, the stored
    position, the ticks, and the binary log's own position."""
    return [
        src.query("SELECT COUNT(*), MAX(repl_key) FROM repl_items"),
        src.query("SELECT gtid, log_file, log_pos, event_at, drained_at FROM repl_log_state"),
        src.query("SELECT * FROM repl_service_context"),
        src.query("SELECT COUNT(*), MAX(tick_id) FROM repl_ticks"),
        src.query("SELECT @@global.gtid_binlog_pos"),
    ]


def test_status_dates_what_waits_in_the_binary_log_without_writing(
    log_maria_db: Any, pg_db: Any, tmp_path: Path
) -> None:
    src, dst = log_maria_db, pg_db
    rk.setup_source(src)
    rk.setup_target(dst, with_fk=False, audit=False)
    cfg = log_config(tmp_path / "sp.yaml", src, dst)
    ch = Channel.from_file(cfg)
    ch.install()
    src.execute("INSERT INTO parent (id, name, ver) VALUES (1, 'a', 'v1')",
                "INSERT INTO child (id, parent_id, ver) VALUES (1, 1, 'v1')")  # fmt: skip
    ch.run(once=True)  # a round (small: in the driver, no Spark)
    assert rk.same(src, dst)[0]

    # no follower: the writes stay in the binary log
    src.execute("INSERT INTO parent (id, name, ver) VALUES (2, 'b', 'v2')",
                "UPDATE parent SET name = 'c' WHERE id = 1")  # fmt: skip
    time.sleep(WAIT_S)
    before = _written(src)
    first = _status(cfg)
    lags = _lags(first)
    assert lags["parent"] >= WAIT_S, (lags, first["capture"])
    assert lags["child"] == 0.0, lags  # nothing of it waits
    parent = next(t for t in first["integrate"]["cen"]["tables"] if t["table"] == "parent")
    assert parent["backlog"] == 0  # the backlog counts the queue, which nobody filled
    log = first["capture"]["src"]["log"]
    assert log["unread_bytes"] > 0 and log["age_seconds"] >= WAIT_S
    assert set(log["unread_oldest"]) == {f"{src.name}.parent"}, log

    time.sleep(1.0)
    again = _lags(_status(cfg))
    assert again["parent"] >= lags["parent"] + 0.9 and again["child"] == 0.0, (lags, again)
    assert _written(src) == before  # status wrote nothing

    # a round drains and applies them: nothing waits any more
    ch.run(once=True)
    assert rk.same(src, dst)[0]
    done = _status(cfg)
    assert _lags(done) == {"parent": 0.0, "child": 0.0}
    assert not done["capture"]["src"]["log"].get("unread_oldest")


def test_status_leaves_a_followers_reader_reading(log_maria_db: Any) -> None:
    """A follower keeps its replica connection to the binary log open under the capture's
    server id; the server would end it if another dump came under the same id. Status reads
    the log under an id of its own: the follower's reader reads on."""
    db = log_maria_db
    db.execute(T)
    log = Log(db, "t")
    try:
        gtid = db.query("SELECT gtid FROM repl_log_state")[0][0]
        connection = {k: v for k, v in dialect.parts(db.url).items()
                      if k != "database" and v is not None}  # fmt: skip
        follower = binlog.Reader(
            connection,
            binlog.replica_id(f"{db.name}\0repl_"),  # the drain's id for this capture
            gtid,
            (db.name, "repl_origin_marks"),
            db.name,
            ["t"],
        )
        try:
            wanted = lambda schema, table: table == "t"  # noqa: E731
            db.execute("INSERT INTO t VALUES (1, 'x')")
            head = db.query("SELECT @@global.gtid_binlog_pos")[0][0]
            assert [len(x.changes) for x in follower.transactions(head, wanted)] == [1]
            # the queue holds none of it: status reads the binary log
            held = log.cap.status(log.conn).log or {}
            assert set(held["unread_oldest"]) == {f"{db.name}.t"}, held
            db.execute("INSERT INTO t VALUES (2, 'y')")  # sent to the follower's dump, alive
            head = db.query("SELECT @@global.gtid_binlog_pos")[0][0]
            assert [len(x.changes) for x in follower.transactions(head, wanted)] == [1]
        finally:
            follower.close()
    finally:
        log.close()


def test_status_does_not_read_the_binary_log_while_a_drain_holds_it(log_maria_db: Any) -> None:
    """A drain running now is taking what waits in the binary log into the queue: status
    does not read the same log beside it (it says how many bytes wait, not how old they
    are), and reads it again once the drain's lock is free."""
    db = log_maria_db
    db.execute(T)
    log = Log(db, "t")
    other = dialect.connect(db.url, autocommit=True)
    try:
        db.execute("INSERT INTO t VALUES (1, 'x')")
        held = log.cap.status(log.conn).log or {}
        assert set(held["unread_oldest"]) == {f"{db.name}.t"}, held
        lock = log.cap._site(log.conn).names.lock(db.name, "drain")
        cur = other.cursor()
        cur.execute("SELECT GET_LOCK(%s, 0)", (lock,))
        assert cur.fetchone()[0] == 1
        during = log.cap.status(log.conn).log or {}
        assert during["unread_bytes"] > 0 and "unread_oldest" not in during, during
        cur.execute("SELECT RELEASE_LOCK(%s)", (lock,))
        cur.fetchall()
        after = log.cap.status(log.conn).log or {}
        assert set(after["unread_oldest"]) == {f"{db.name}.t"}, after
    finally:
        other.close()
        log.close()
