"""The long-running commands' log lines: a trouble repeated every poll is one line, then a
count once a period, then a line when it is over; each line starts with its time."""

from __future__ import annotations

import logging
import re
import time

import pytest

from syncpoint.observe.logtext import FORMAT, Repeats, TimeFormatter

TIMED = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d WARNING ")


def test_repeats_are_counted_and_the_end_is_said(caplog: pytest.LogCaptureFixture) -> None:
    log = logging.getLogger("syncpoint.test")
    r = Repeats(every=0.2)
    with caplog.at_level(logging.INFO):
        for _ in range(5):
            r.warning(log, "cen: group g: rounds", "cannot connect")
        assert [x.getMessage() for x in caplog.records] == [
            "cen: group g: rounds: cannot connect (repeats are counted: one line a minute)"
        ]
        time.sleep(0.25)
        r.warning(log, "cen: group g: rounds", "cannot connect still")
        summary = caplog.records[-1].getMessage()
        assert summary.startswith("cen: group g: rounds: still failing, 5 times more") and (
            "(6 in all" in summary and summary.endswith(": cannot connect still")
        ), summary
        assert r.failing("cen: group g: rounds")
        r.over(log, "cen: group g: rounds", "commit again")
        r.over(log, "cen: group g: rounds", "commit again")  # said once
    back = [x.getMessage() for x in caplog.records if "commit again" in x.getMessage()]
    assert len(back) == 1 and back[0].startswith("cen: group g: rounds: commit again after 6")
    assert not r.failing("cen: group g: rounds")


def test_a_line_starts_with_its_time_and_zone() -> None:
    rec = logging.LogRecord("x", logging.WARNING, __file__, 1, "cen: down", None, None)
    assert TIMED.match(TimeFormatter(FORMAT).format(rec))
