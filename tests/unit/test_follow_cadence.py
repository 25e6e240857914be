"""``run --follow``'s passes start ``--interval`` apart: a change waits half an interval
for its pass on average, not half an interval plus half a pass."""

from __future__ import annotations

import pytest

from syncpoint.ops.run import _pause


@pytest.mark.parametrize(
    ("interval", "took", "pause"),
    [
        (1.0, 0.0, 1.0),  # an empty pass: the whole interval
        (1.0, 0.3, 0.7),  # the pass's time is part of the interval
        (0.2, 0.15, 0.05),
        (1.0, 2.5, 0.1),  # a pass longer than the interval: a tenth of it, never none
        (0.2, 0.2, 0.02),
    ],
)
def test_pause(interval: float, took: float, pause: float) -> None:
    assert _pause(interval, took) == pytest.approx(pause)
