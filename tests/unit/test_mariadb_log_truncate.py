"""The TRUNCATE statements log capture recognises in the binary log, hostile names too."""

from __future__ import annotations

from syncpoint.vendors.mariadb.log.ddl import truncated


def test_truncate_targets() -> None:
    assert truncated("TRUNCATE TABLE t", "db") == ("db", "t")
    assert truncated("truncate t", "db") == ("db", "t")
    assert truncated("TRUNCATE TABLE `o``d` ", "db") == ("db", "o`d")
    assert truncated("TRUNCATE TABLE `s p`.`Ord``er ☃ \"x\"`", None) == ("s p", 'Ord`er ☃ "x"')
    assert truncated("TRUNCATE TABLE other . t2;", "db") == ("other", "t2")
    assert truncated("TRUNCATE TABLE `a.b`", "db") == ("db", "a.b")


def test_other_statements_are_not_truncates() -> None:
    for s in ("ALTER TABLE t ADD c INT", "DROP TABLE t", "TRUNCATE TABLE t; DROP TABLE u"):
        assert truncated(s, "db") is None
