"""Which way a round's records travel from its capture locations to its target.

A vendor may have a *direct path* (``vendors/<v>/round_direct.py``): the records streamed
from the capture location's queue into the target by the databases' own bulk copy, split
into operations at the source and netted at the target, where both are of that vendor;
from a source of another vendor listed in ``FROM_OTHERS``, the records are read by that
source's unbuffered cursor and split into operations by the copy task. Elsewhere (or with
``SYNCPOINT_ROUND_PATH=spark`` for comparisons) Spark reads the records over JDBC and nets
them.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
from typing import Any

# target vendor -> the source vendors its direct path also reads, row by row
FROM_OTHERS = {"postgres": ("mariadb",)}


def direct_round(source_vendor: str, target_vendor: str) -> Any:
    """The direct path's module for this pair of vendors, or None."""
    if os.environ.get("SYNCPOINT_ROUND_PATH", "") == "spark":
        return None
    if source_vendor != target_vendor and source_vendor not in FROM_OTHERS.get(target_vendor, ()):
        return None
    name = f"syncpoint.vendors.{target_vendor}.round_direct"
    if importlib.util.find_spec(name) is None:
        return None
    return importlib.import_module(name)
