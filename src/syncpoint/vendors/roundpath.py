"""Which way a round's records travel from its capture locations to its target.

A vendor may have a *direct path* (``vendors/<v>/round_direct.py``): the records streamed
from the capture location's queue into the target by the databases' own bulk copy, split
into operations at the source and netted at the target, where both are of that vendor.
Elsewhere (another vendor at either end, or ``SYNCPOINT_ROUND_PATH=spark`` for
comparisons) Spark reads the records over JDBC and nets them.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
from typing import Any


def direct_round(source_vendor: str, target_vendor: str) -> Any:
    """The direct path's module for this pair of vendors, or None."""
    if os.environ.get("SYNCPOINT_ROUND_PATH", "") == "spark" or source_vendor != target_vendor:
        return None
    name = f"syncpoint.vendors.{source_vendor}.round_direct"
    if importlib.util.find_spec(name) is None:
        return None
    return importlib.import_module(name)
