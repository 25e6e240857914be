"""The names of log capture's own objects (besides the queue's, which it shares with the
trigger capture): the publication ``{p}pub``, the logical slot ``{p}slot``, the decoder's
state, and the prefixes of the logical messages syncpoint emits."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from syncpoint.vendors.postgres.names import _SUFFIX, Names
from syncpoint.vendors.sqlfiles import SqlFiles

_LOG_SUFFIX = {
    "pub": "pub",
    "slot": "slot",
    "log_state": "log_state",
    "log_state_pkey": "log_state_pkey",
    "log_state_one": "log_state_one",
    "log_tables": "log_tables",
    "log_tables_pkey": "log_tables_pkey",
    "fn_horizon": "log_horizon",
    "fn_origin": "log_origin",
    "fn_identity": "log_identity",
    "fn_part_trunc": "partition_truncate",
    "fn_part_watch": "partition_watch",
    "fn_log_check": "log_check",
    "trg_part": "partition_truncate",
}


@dataclass(frozen=True)
class LogNames(Names):
    def name(self, token: str) -> str:
        return self.prefix + (_LOG_SUFFIX.get(token) or _SUFFIX[token])

    @property
    def message_prefix(self) -> str:
        """Logical messages of this prefix start with it (several channels may share a
        database; the decoder ignores other prefixes' messages)."""
        return f"syncpoint:{self.schema}.{self.prefix}"

    @cached_property
    def idents(self) -> dict[str, str]:
        out = {token: self.name(token) for token in (*_SUFFIX, *_LOG_SUFFIX)}
        out["schema"] = self.schema
        return out

    def literals(self, **extra: str) -> dict[str, str]:
        return super().literals(
            pub=self.name("pub"),
            log_state_q=self.qualified("log_state"),
            msg_ddl=self.message_prefix + "ddl",
            msg_origin=self.message_prefix + "origin",
            trg_part=self.name("trg_part"),
            fn_part_trunc_q=self.qualified("fn_part_trunc"),
            fn_log_check_q=self.qualified("fn_log_check"),
            **extra,
        )

    @cached_property
    def sql(self) -> SqlFiles:
        return SqlFiles("postgres", idents=self.idents)
