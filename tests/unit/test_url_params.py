"""Connection parameters of a location's URL become the JDBC driver's properties (Spark's
connections are made as the Python driver's are); secrets stay out of the JDBC URL."""

from __future__ import annotations

from syncpoint.vendors.mariadb import dialect as maria
from syncpoint.vendors.postgres import dialect as pg


def test_postgres_query_parameters_become_jdbc_properties() -> None:
    url, props = pg.jdbc(
        "postgresql://etl:s%40cret@db.example:6432/shop?sslmode=verify-full"
        "&sslrootcert=/etc/ca.pem&application_name=sp&connect_timeout=7"
    )
    assert url == "jdbc:postgresql://db.example:6432/shop"
    assert props["sslmode"] == "verify-full" and props["sslrootcert"] == "/etc/ca.pem"
    assert props["ApplicationName"] == "sp" and props["connectTimeout"] == "7"
    assert props["user"] == "etl" and props["password"] == "s@cret"


def test_mariadb_tls_reaches_pymysql_and_jdbc_alike() -> None:
    base = "mysql://etl:pw@db.example/shop"
    assert "ssl" not in maria.parts(base) and maria.jdbc(base)[1].get("useSSL") is None
    required = maria.parts(base + "?ssl=true")
    assert required["ssl"]["check_hostname"] is False
    assert maria.jdbc(base + "?ssl=true")[1]["trustServerCertificate"] == "true"
    kw = maria.parts(base + "?ssl_mode=VERIFY_IDENTITY&ssl_ca=/ca.pem")
    assert kw["ssl_ca"] == "/ca.pem" and kw["ssl_verify_cert"] and kw["ssl_verify_identity"]
    url, props = maria.jdbc(base + "?ssl_mode=VERIFY_IDENTITY&ssl_ca=/ca.pem")
    assert props["useSSL"] == "true" and props["serverSslCert"] == "/ca.pem"
    assert "disableSslHostnameVerification" not in props and "pw" not in url
    ca = maria.jdbc(base + "?ssl_mode=verify-ca&ssl_ca=/ca.pem")[1]
    assert ca["disableSslHostnameVerification"] == "true"
