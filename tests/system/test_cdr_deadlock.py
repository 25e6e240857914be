"""A deadlock between an application and a round's apply under conflict resolution, at a
MariaDB site: the apply, chosen by InnoDB to end the deadlock, is done again within the
round, which completes with every row applied."""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

import pytest

from syncpoint.ops.cdr import setup
from syncpoint.ops.round import DEADLOCK_RETRIES
from tests.system.test_cdr_pairs import GROUPS, PAIRS, ins, norm, pair, rows, upd

pytestmark = pytest.mark.spark
__all__ = ["pair"]  # the fixture, shared with test_cdr_pairs

# a session of this test's database waiting for a row lock (other tests share the server)
WAITING = (
    "SELECT count(*) FROM information_schema.INNODB_TRX x "
    "JOIN information_schema.PROCESSLIST p ON p.ID = x.trx_mysql_thread_id "
    "WHERE x.trx_state = 'LOCK WAIT' AND p.DB = DATABASE() AND p.ID <> CONNECTION_ID()"
)


def application(db: Any, holding: threading.Event, out: dict[str, Any]) -> None:
    """Lock row 2, wait until the round's apply waits for it (holding row 1, which it
    locked first), then ask for rows 1 and 3: a deadlock. This transaction has written
    many rows, so InnoDB rolls the apply back, the smaller one."""
    conn = db.connect(autocommit=False)
    try:
        cur = conn.cursor()
        cur.execute("INSERT INTO ballast (n) SELECT seq FROM seq_1_to_5000")
        cur.execute("SELECT id FROM item WHERE id = 2 FOR UPDATE")
        holding.set()
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            cur.execute(WAITING)
            if cur.fetchone()[0]:
                break
            time.sleep(0.05)
        else:
            out["error"] = "the round's apply never waited for row 2"
            return
        cur.execute("SELECT id FROM item WHERE id IN (1, 3) FOR UPDATE")
        out["locked"] = [r[0] for r in cur.fetchall()]
        time.sleep(0.5)
        conn.commit()
    except Exception as exc:  # noqa: BLE001 - reported to the test
        out["error"] = repr(exc)
        conn.rollback()
    finally:
        conn.close()


@pytest.mark.parametrize("pair", [PAIRS[1]], indirect=True, ids=lambda p: "-".join(p))
def test_apply_deadlocked_by_the_application_is_done_again(
    pair: Any, spark: Any, caplog: pytest.LogCaptureFixture
) -> None:
    ch, a, b = pair
    assert b.vendor == "mariadb"
    setup.add(ch.cfg, "item", "latest", GROUPS)
    b.execute("CREATE TABLE ballast (n bigint) ENGINE=InnoDB")
    a.execute(*(ins("item", i, f"n{i}") for i in (1, 2, 3)))
    ch.run(once=True, spark=spark)
    a.execute(*(upd("item", i, f"name = 'new{i}'") for i in (1, 2, 3)))
    holding, out = threading.Event(), {}
    app = threading.Thread(target=application, args=(b, holding, out), daemon=True)
    app.start()
    assert holding.wait(60)
    with caplog.at_level(logging.WARNING, logger="syncpoint.rounds"):
        report = ch.run(once=True, spark=spark)
    app.join(60)
    assert "error" not in out, out
    assert out["locked"] == [1, 3]
    assert not report.errors and not report.stopped
    retries = [r for r in caplog.records if "applying again" in r.getMessage()]
    assert 1 <= len(retries) < DEADLOCK_RETRIES
    assert "1213" in retries[0].getMessage()
    for i in (1, 2, 3):
        want = tuple(norm(v) for v in (i, f"new{i}", 1, "1", "EUR"))
        assert rows(a, "item", i) == rows(b, "item", i) == want
