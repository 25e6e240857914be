"""Which way a round's records travel from its capture locations to its target.

A target vendor may have a *direct path* (``vendors/<v>/round_direct.py``, for the
capture vendors its ``SOURCES`` lists): the records streamed from the capture location's
queue into the target by the databases' own bulk copy (or, from a source without one, an
unbuffered read), split into operations and netted at the target. Elsewhere (or with
``SYNCPOINT_ROUND_PATH=spark`` for comparisons) Spark reads the records over JDBC and nets
them.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
from typing import Any


def direct_round(source_vendor: str, target_vendor: str) -> Any:
    """The direct path's module for this pair of vendors, or None."""
    if os.environ.get("SYNCPOINT_ROUND_PATH", "") == "spark":
        return None
    name = f"syncpoint.vendors.{target_vendor}.round_direct"
    if importlib.util.find_spec(name) is None:
        return None
    mod = importlib.import_module(name)
    return mod if source_vendor in mod.SOURCES else None
