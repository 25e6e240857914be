"""syncpoint: change data capture and consistent replication rounds through Apache Spark.

The public API: ``Channel`` (the operations of the command line) and ``gate`` (a context
manager for a producer's or consumer's turn, docs/objects.md "Gate states"). ``import
syncpoint`` loads neither a database driver nor pyspark until they are used.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Channel", "Gate", "GateBusy", "GateRefused", "gate", "__version__"]
__version__ = "0.1.0"

# Imported eagerly: they load no driver.
from syncpoint.errors import GateBusy, GateRefused  # noqa: E402
from syncpoint.ops.gate import Gate, gate  # noqa: E402


def __getattr__(name: str) -> Any:
    if name == "Channel":
        from syncpoint.ops.channel import Channel

        return Channel
    raise AttributeError(name)
