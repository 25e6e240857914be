"""Every connection parameter of a location's URL reaches every connection, Spark's JDBC
reads and writes included: a PostgreSQL database that only accepts TLS (``hostssl`` for a
dedicated database, a certificate made by the test) refuses Spark when the URL says
``sslmode=disable`` or names a CA that did not sign the server's certificate, and a channel
with ``sslmode=verify-full&sslrootcert=...`` runs end to end through it.

(The PostgreSQL JDBC driver's own default is ``prefer``: with no sslmode at all it tries TLS
first, so the refusals are shown with the parameters that must be honoured.) The server's
TLS settings and its ``pg_hba.conf`` are put back afterwards; the rules added name only the
test's database, so concurrent tests are not affected.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import psycopg.sql
import pytest
import yaml

from syncpoint.ops.channel import Channel
from syncpoint.vendors import of_url
from tests.conftest import PG_ADMIN, make_pg, make_sqlite
from tests.system import roundkit as rk
from tests.system.test_rounds_once import sql

pytestmark = pytest.mark.spark


def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


def _certs(folder: Path, name: str) -> None:
    """A CA, and a server certificate for 127.0.0.1 signed by it."""
    folder.mkdir(mode=0o755)
    ca = f"{name}-ca"
    _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{ca}.key",
             "-out", f"{ca}.crt", "-subj", f"/CN={ca}", "-days", "2", cwd=folder)  # fmt: skip
    _openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out",
             "server.csr", "-subj", "/CN=127.0.0.1", cwd=folder)  # fmt: skip
    (folder / "san.ext").write_text("subjectAltName=IP:127.0.0.1\n")
    _openssl("x509", "-req", "-in", "server.csr", "-CA", f"{name}-ca.crt", "-CAkey",
             f"{name}-ca.key", "-CAcreateserial", "-out", "server.crt", "-days", "2",
             "-extfile", "san.ext", cwd=folder)  # fmt: skip


def _wait_for(pred: Any) -> bool:
    for _ in range(50):
        if pred():
            return True
        time.sleep(0.1)
    return False


def _refused(url: str) -> bool:
    try:
        psycopg.connect(url, connect_timeout=5).close()
        return False
    except psycopg.OperationalError:
        return True


@pytest.fixture
def tls_db(tmp_path: Path) -> Iterator[tuple[Any, Path]]:
    """A fresh database reachable only over TLS, and the CA that signed the server."""
    gen = make_pg()
    db = next(gen)
    admin = psycopg.connect(PG_ADMIN, autocommit=True)
    hba = Path(admin.execute("SHOW hba_file").fetchone()[0])
    if not os.access(hba, os.W_OK):
        admin.close()
        next(gen, None)
        pytest.skip("pg_hba.conf is not writable here (run as root or postgres)")
    # the server must read its key: not under pytest's folders (0700, root's)
    top = Path(tempfile.mkdtemp(prefix="sp_tls_"))
    os.chmod(top, 0o755)
    certs = top / "tls"
    _certs(certs, "good")
    owner = pwd.getpwnam("postgres")
    for f in ("server.key", "server.crt"):
        os.chown(certs / f, owner.pw_uid, owner.pw_gid)
    os.chmod(certs / "server.key", 0o600)
    original = hba.read_text()
    rules = (
        f"hostnossl {db.name} all 127.0.0.1/32 reject\nhostssl {db.name} all 127.0.0.1/32 trust\n"
    )
    try:
        for key, f in (("ssl_cert_file", "server.crt"), ("ssl_key_file", "server.key")):
            stmt = psycopg.sql.SQL("ALTER SYSTEM SET {} = {}").format(
                psycopg.sql.Identifier(key), psycopg.sql.Literal(str(certs / f))
            )
            admin.execute(stmt)
        admin.execute("ALTER SYSTEM SET ssl = on")
        hba.write_text(rules + original)
        admin.execute("SELECT pg_reload_conf()")
        assert _wait_for(lambda: not _refused(db.url + "?sslmode=require")), "TLS is not on"
        yield db, certs / "good-ca.crt"
    finally:
        hba.write_text(original)
        admin.execute("ALTER SYSTEM RESET ssl")
        admin.execute("ALTER SYSTEM RESET ssl_cert_file")
        admin.execute("ALTER SYSTEM RESET ssl_key_file")
        admin.execute("SELECT pg_reload_conf()")
        admin.close()
        shutil.rmtree(top, ignore_errors=True)
        next(gen, None)


def _spark_reads(spark: Any, url: str) -> bool:
    """Whether Spark's JDBC reader, given what syncpoint gives it, reads from ``url``."""
    jdbc_url, props = of_url(url).Integrate("x", url, "repl_").jdbc()
    try:
        df = spark.read.jdbc(jdbc_url, "(SELECT 1 AS one) q", properties=props)
        return [tuple(r) for r in df.collect()] == [(1,)]
    except Exception as exc:  # noqa: BLE001 - a refused connection, as the test expects
        if "FAILED_JDBC.CONNECTION" in str(exc):  # Spark hides the driver's reason
            return False
        raise


def test_connection_parameters_reach_spark(tls_db: Any, tmp_path: Path, spark: Any) -> None:
    db, ca = tls_db
    other = tmp_path / "other"
    _certs(other, "other")
    assert _refused(db.url + "?sslmode=disable")
    assert not _spark_reads(spark, db.url + "?sslmode=disable")
    assert not _spark_reads(spark, f"{db.url}?sslmode=verify-full&sslrootcert={other}/other-ca.crt")
    url = f"{db.url}?sslmode=verify-full&sslrootcert={ca}"
    assert _spark_reads(spark, url)

    # a whole channel through it: capture, ticks, Spark's reads of the change records
    gen = make_sqlite(tmp_path)
    dst = next(gen)
    src = type(db)("postgres", url, db.name)
    rk.setup_source(src)
    path = rk.write_config(tmp_path / "sp.yaml", {"src": src}, dst)
    data = yaml.safe_load(path.read_text())
    data["tables"] = [{"name": n, "snapshot": "none"} for n in ("public.parent", "public.child")]
    path.write_text(yaml.safe_dump(data))
    ch = Channel.from_file(path)
    ch.install()
    sql(src, "INSERT INTO parent (id, name, ver) VALUES (1, 'over tls', 'v1')")
    ch.run(once=True, spark=spark)
    assert dst.query("SELECT id, name FROM parent") == [(1, "over tls")]
    next(gen, None)
