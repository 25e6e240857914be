"""PostgreSQL capture of row changes: exact records for inserts, updates, deletes, key
changes, transactions, rollbacks, savepoints, actions, debug, origin, hostile names."""

from __future__ import annotations

from typing import Any

from test_postgres_capture_support import Pg, rows, tx

from syncpoint.config import TableConfig

T = "CREATE TABLE public.t (id integer PRIMARY KEY, name text, qty integer)"


def _pg(db: Any, *tables: TableConfig | str, ddl: str = T) -> tuple[Pg, int]:
    db.execute(ddl)
    pg = Pg(db)
    pg.install(*(tables or ("public.t",)))
    return pg, pg.tick()


def test_insert_update_delete_multi_row(pg_db: Any) -> None:
    pg, p0 = _pg(pg_db)
    tx(pg_db, "INSERT INTO t VALUES (1, 'a', 1), (2, 'b', 2), (3, 'c', 3)")
    tx(pg_db, "UPDATE t SET qty = qty * 10 WHERE id >= 2")
    tx(pg_db, "DELETE FROM t WHERE id IN (1, 3)")
    p1, recs = pg.window("public.t", p0)
    got = rows(recs)
    assert got[:3] == [
        ("INSERT", {"id": 1, "name": "a", "qty": 1}, None),
        ("INSERT", {"id": 2, "name": "b", "qty": 2}, None),
        ("INSERT", {"id": 3, "name": "c", "qty": 3}, None),
    ]
    # within one statement the order of rows is the database's; per key it is exact
    assert sorted(got[3:5], key=lambda r: r[1]["id"]) == [
        ("UPDATE", {"id": 2, "name": "b", "qty": 20}, {"id": 2, "name": "b", "qty": 2}),
        ("UPDATE", {"id": 3, "name": "c", "qty": 30}, {"id": 3, "name": "c", "qty": 3}),
    ]
    assert sorted(got[5:], key=lambda r: r[2]["id"]) == [
        ("DELETE", None, {"id": 1, "name": "a", "qty": 1}),
        ("DELETE", None, {"id": 3, "name": "c", "qty": 30}),
    ]
    assert [r.repl_key for r in recs] == sorted(r.repl_key for r in recs)
    assert {r.context for r in recs} == {p1}
    assert {(r.dbid, r.tablename, r.db_schema, r.db_catalog, r.version) for r in recs} == {
        ("dec01", "t", "public", pg_db.name, 1)
    }
    assert len({r.trans_key for r in recs}) == 3
    assert len({r.guid for r in recs}) == len(recs)
    assert all(r.guid.endswith(f":{r.repl_key}") for r in recs)
    assert all(
        r.captured_at is not None and r.captured_at.utcoffset().total_seconds() == 0 for r in recs
    )


def test_one_transaction_many_statements_share_a_trans_key(pg_db: Any) -> None:
    pg, p0 = _pg(pg_db)
    tx(
        pg_db,
        "INSERT INTO t VALUES (1, 'a', 1)",
        "UPDATE t SET name = 'a2' WHERE id = 1",
        "UPDATE t SET name = 'a3' WHERE id = 1",
        "DELETE FROM t WHERE id = 1",
        "INSERT INTO t VALUES (1, 'again', 2)",
    )
    _, recs = pg.window("public.t", p0)
    assert rows(recs) == [
        ("INSERT", {"id": 1, "name": "a", "qty": 1}, None),
        ("UPDATE", {"id": 1, "name": "a2", "qty": 1}, {"id": 1, "name": "a", "qty": 1}),
        ("UPDATE", {"id": 1, "name": "a3", "qty": 1}, {"id": 1, "name": "a2", "qty": 1}),
        ("DELETE", None, {"id": 1, "name": "a3", "qty": 1}),
        ("INSERT", {"id": 1, "name": "again", "qty": 2}, None),
    ]
    assert len({r.trans_key for r in recs}) == 1
    assert int(recs[0].trans_key) > 0


def test_rolled_back_transaction_captures_nothing(pg_db: Any) -> None:
    pg, p0 = _pg(pg_db)
    tx(pg_db, "INSERT INTO t VALUES (1, 'a', 1)", "UPDATE t SET qty = 5", rollback=True)
    _, recs = pg.window("public.t", p0)
    assert recs == []
    assert pg_db.query("SELECT count(*) FROM repl_items") == [(0,)]


def test_savepoint_rollback_keeps_only_the_kept_rows(pg_db: Any) -> None:
    pg, p0 = _pg(pg_db)
    tx(
        pg_db,
        "INSERT INTO t VALUES (1, 'kept', 1)",
        "SAVEPOINT s1",
        "INSERT INTO t VALUES (2, 'undone', 2)",
        "UPDATE t SET name = 'undone too' WHERE id = 1",
        "ROLLBACK TO SAVEPOINT s1",
        "SAVEPOINT s2",
        "INSERT INTO t VALUES (3, 'kept in s2', 3)",
        "RELEASE SAVEPOINT s2",
    )
    _, recs = pg.window("public.t", p0)
    assert rows(recs) == [
        ("INSERT", {"id": 1, "name": "kept", "qty": 1}, None),
        ("INSERT", {"id": 3, "name": "kept in s2", "qty": 3}, None),
    ]
    assert recs[0].trans_key == recs[1].trans_key


def test_key_update_keeps_the_final_state_right(pg_db: Any) -> None:
    # a deferrable key is checked at the end of the statement, so id = id + 1 may overlap
    ddl = "CREATE TABLE public.t (id integer PRIMARY KEY DEFERRABLE, name text, qty integer)"
    pg, p0 = _pg(pg_db, ddl=ddl)
    tx(pg_db, "INSERT INTO t VALUES (1, 'a', 1), (2, 'b', 2), (3, 'c', 3)")
    p1 = pg.tick()
    tx(pg_db, "UPDATE t SET id = id + 1")
    _, recs = pg.window("public.t", p1)
    by_key = sorted(rows(recs), key=lambda r: (r[1] or r[2])["id"])
    # old keys 1,2,3 and new keys 2,3,4: 1 goes, 2 and 3 change, 4 comes
    assert by_key == [
        ("DELETE", None, {"id": 1, "name": "a", "qty": 1}),
        ("UPDATE", {"id": 2, "name": "a", "qty": 1}, {"id": 2, "name": "b", "qty": 2}),
        ("UPDATE", {"id": 3, "name": "b", "qty": 2}, {"id": 3, "name": "c", "qty": 3}),
        ("INSERT", {"id": 4, "name": "c", "qty": 3}, None),
    ]
    # replaying the records on the old rows gives the new table
    state = {1: ("a", 1), 2: ("b", 2), 3: ("c", 3)}
    for action, new, old in rows(recs):
        if action == "DELETE":
            del state[old["id"]]
        else:
            state[new["id"]] = (new["name"], new["qty"])
    assert sorted((k, *v) for k, v in state.items()) == pg_db.query("SELECT * FROM t ORDER BY 1")


def _update_trigger_level(db: Any, table: str) -> str:
    ((tgtype,),) = db.query(
        "SELECT tgtype FROM pg_trigger WHERE tgrelid = %s::regclass AND tgname LIKE '%%_upd'",
        (table,),
    )
    return "row" if tgtype & 1 else "statement"


def test_update_is_captured_row_by_row_only_where_a_key_cannot_be_swapped(pg_db: Any) -> None:
    pg, _ = _pg(pg_db)
    assert _update_trigger_level(pg_db, "t") == "row"
    tx(pg_db, "INSERT INTO t VALUES (1, 'a', 1), (2, 'b', 2), (3, 'c', 3)")
    p1 = pg.tick()
    # the database runs the key change row by row in some order, each leaving keys unique
    tx(pg_db, "UPDATE t SET id = id + 10, qty = qty + 1 WHERE id > 1", "UPDATE t SET qty = 0")
    _, recs = pg.window("public.t", p1)
    got = rows(recs)
    assert sorted(got[:4], key=lambda r: (r[0], (r[1] or r[2])["id"])) == [
        ("DELETE", None, {"id": 2, "name": "b", "qty": 2}),
        ("DELETE", None, {"id": 3, "name": "c", "qty": 3}),
        ("INSERT", {"id": 12, "name": "b", "qty": 3}, None),
        ("INSERT", {"id": 13, "name": "c", "qty": 4}, None),
    ]
    for delete, insert in (got[0:2], got[2:4]):  # each row's DELETE just before its INSERT
        assert (delete[0], insert[0], delete[2]["name"]) == ("DELETE", "INSERT", insert[1]["name"])
    assert sorted(got[4:], key=lambda r: r[1]["id"]) == [
        ("UPDATE", {"id": 1, "name": "a", "qty": 0}, {"id": 1, "name": "a", "qty": 1}),
        ("UPDATE", {"id": 12, "name": "b", "qty": 0}, {"id": 12, "name": "b", "qty": 3}),
        ("UPDATE", {"id": 13, "name": "c", "qty": 0}, {"id": 13, "name": "c", "qty": 4}),
    ]
    # a deferrable key can be swapped inside one statement: pairing by key, per statement
    pg_db.execute("ALTER TABLE t DROP CONSTRAINT t_pkey, ADD PRIMARY KEY (id) DEFERRABLE")
    assert _update_trigger_level(pg_db, "t") == "statement"
    p2 = pg.tick()
    tx(pg_db, "UPDATE t SET id = CASE id WHEN 12 THEN 13 WHEN 13 THEN 12 ELSE id END")
    _, recs = pg.window("public.t", p2)
    assert sorted(rows(recs), key=lambda r: r[1]["id"]) == [
        ("UPDATE", {"id": 1, "name": "a", "qty": 0}, {"id": 1, "name": "a", "qty": 0}),
        ("UPDATE", {"id": 12, "name": "c", "qty": 0}, {"id": 12, "name": "b", "qty": 0}),
        ("UPDATE", {"id": 13, "name": "b", "qty": 0}, {"id": 13, "name": "c", "qty": 0}),
    ]
    # a unique index checked row by row is enough; dropping it goes back to the statement
    pg_db.execute("CREATE UNIQUE INDEX t_id ON t (id)", "ALTER TABLE t ADD COLUMN z integer")
    assert _update_trigger_level(pg_db, "t") == "row"
    pg_db.execute("DROP INDEX t_id")
    assert _update_trigger_level(pg_db, "t") == "statement"
    assert [t.status for t in pg.status().tables] == ["OK"]


def test_configured_key_for_a_table_without_primary_key(pg_db: Any) -> None:
    ddl = "CREATE TABLE public.log (a integer NOT NULL, b text NOT NULL, v text)"
    pg, p0 = _pg(pg_db, TableConfig(name="public.log", key=["b", "a"]), ddl=ddl)
    tx(pg_db, "INSERT INTO log VALUES (1, 'x', 'one'), (2, 'x', 'two')")
    tx(pg_db, "UPDATE log SET v = 'TWO' WHERE a = 2")
    tx(pg_db, "UPDATE log SET a = 3 WHERE a = 1")
    _, recs = pg.window("public.log", p0)
    got = rows(recs)
    assert got[2] == ("UPDATE", {"a": 2, "b": "x", "v": "TWO"}, {"a": 2, "b": "x", "v": "two"})
    assert sorted(got[3:], key=lambda r: r[0]) == [
        ("DELETE", None, {"a": 1, "b": "x", "v": "one"}),
        ("INSERT", {"a": 3, "b": "x", "v": "one"}, None),
    ]


def test_actions_subsets_decide_which_triggers_exist(pg_db: Any) -> None:
    pg, p0 = _pg(pg_db, TableConfig(name="public.t", actions="UD"))
    tx(pg_db, "INSERT INTO t VALUES (1, 'a', 1), (2, 'b', 2)")
    tx(pg_db, "UPDATE t SET qty = 9 WHERE id = 1", "DELETE FROM t WHERE id = 2")
    tx(pg_db, "TRUNCATE t")
    _, recs = pg.window("public.t", p0)
    assert [r.db_action for r in recs] == ["UPDATE", "DELETE", "TRUNCATE"]
    # without D, neither DELETE nor TRUNCATE is captured
    pg.install(TableConfig(name="public.t", actions="IU"))
    p1 = pg.tick()
    tx(pg_db, "INSERT INTO t VALUES (5, 'e', 5)", "DELETE FROM t", "TRUNCATE t")
    _, recs = pg.window("public.t", p1)
    assert rows(recs) == [("INSERT", {"id": 5, "name": "e", "qty": 5}, None)]


def test_debug_flag_writes_lines(pg_db: Any) -> None:
    pg, p0 = _pg(pg_db, TableConfig(name="public.t", debug=True))
    tx(
        pg_db,
        "INSERT INTO t VALUES (1, 'a', 1), (2, 'b', 2)",
        "DELETE FROM t WHERE id = 7",
        "UPDATE t SET qty = 0 WHERE id = 2",
    )
    _, recs = pg.window("public.t", p0)
    lines = pg_db.query("SELECT repl_key, line FROM repl_debug_table ORDER BY logged_at")
    x = recs[0].trans_key
    assert lines == [
        (recs[1].repl_key, f"INSERT public.t: 2 record(s), trans_key {x}, dbid dec01"),
        (None, f"DELETE public.t: 0 record(s), trans_key {x}, dbid dec01"),
        # an UPDATE of a table with a unique key is captured row by row: a line per row
        (recs[2].repl_key, f"UPDATE public.t: 1 record(s), trans_key {x}, dbid dec01"),
    ]
    # turning debug off in the tables table regenerates the trigger at once
    pg_db.execute("UPDATE repl_tables SET debug = 0")
    tx(pg_db, "INSERT INTO t VALUES (3, 'c', 3)")
    assert pg_db.query("SELECT count(*) FROM repl_debug_table") == [(3,)]


def test_origin_marks_changes_until_commit(pg_db: Any) -> None:
    pg, p0 = _pg(pg_db)
    conn = pg.conn()
    pg.cap.set_origin(conn, "dec02")
    conn.execute("INSERT INTO t VALUES (1, 'remote', 1)")
    conn.commit()
    conn.execute("INSERT INTO t VALUES (2, 'local', 2)")  # a new transaction: no origin
    conn.commit()
    pg.cap.set_origin(conn, "cen")
    conn.execute("INSERT INTO t VALUES (3, 'cen', 3)")
    pg.cap.set_origin(conn, None)
    conn.execute("INSERT INTO t VALUES (4, 'local again', 4)")
    conn.commit()
    conn.close()
    _, recs = pg.window("public.t", p0)
    assert [(r.row["id"], r.dbid) for r in recs] == [
        (1, "dec02"),
        (2, "dec01"),
        (3, "cen"),
        (4, "dec01"),
    ]


def test_origin_setting_is_per_prefix(pg_db: Any) -> None:
    pg, p0 = _pg(pg_db)
    other = Pg(pg_db, prefix="other_")
    other.install("public.t")
    q0 = other.tick()
    conn = pg.conn()
    pg.cap.set_origin(conn, "dec02")
    conn.execute("INSERT INTO t VALUES (1, 'x', 1)")
    conn.commit()
    conn.close()
    assert [r.dbid for r in pg.window("public.t", p0)[1]] == ["dec02"]
    assert [r.dbid for r in other.window("public.t", q0)[1]] == ["dec01"]


def test_session_replication_role_replica_does_not_hide_changes(pg_db: Any) -> None:
    pg, p0 = _pg(pg_db)
    tx(pg_db, "SET session_replication_role = replica", "INSERT INTO t VALUES (1, 'a', 1)")
    _, recs = pg.window("public.t", p0)
    assert rows(recs) == [("INSERT", {"id": 1, "name": "a", "qty": 1}, None)]


HOSTILE = (
    'CREATE TABLE public."Order ""x""; DROP TABLE t; --" ('
    '"select" integer, "user" text, "Mixed Case" text, "a""b" text, "semi;colon" text,'
    ' "back`tick" text, "order" integer, "sp_m" text, "o" text, "n" text,'
    ' PRIMARY KEY ("select", "order"))'
)
HNAME = '"public"."Order ""x""; DROP TABLE t; --"'


def test_hostile_identifiers_are_captured_exactly(pg_db: Any) -> None:
    pg_db.execute(T, HOSTILE)
    pg = Pg(pg_db)
    pg.install("public.t", HNAME)
    p0 = pg.tick()
    q = '"public"."Order ""x""; DROP TABLE t; --"'
    tx(
        pg_db,
        f"INSERT INTO {q} VALUES (1, 'u', 'M', 'q\"', 's;', 'b`', 2, 'm', 'o', 'n')",
        f'UPDATE {q} SET "user" = \'u2\', "order" = 3',
        f"DELETE FROM {q}",
    )
    _, recs = pg.window(HNAME, p0)
    row1 = {
        "select": 1,
        "user": "u",
        "Mixed Case": "M",
        'a"b': 'q"',
        "semi;colon": "s;",
        "back`tick": "b`",
        "order": 2,
        "sp_m": "m",
        "o": "o",
        "n": "n",
    }
    row2 = {**row1, "user": "u2", "order": 3}
    got = rows(recs)
    assert got[0] == ("INSERT", row1, None)
    # the key ("select", "order") changed: the old key goes, the new one comes
    assert sorted(got[1:3], key=lambda r: r[0]) == [("DELETE", None, row1), ("INSERT", row2, None)]
    assert got[3] == ("DELETE", None, row2)
    assert {r.tablename for r in recs} == {'Order "x"; DROP TABLE t; --'}
    assert pg_db.query("SELECT count(*) FROM t") == [(0,)]


def test_upsert_merge_and_cascades_are_captured(pg_db: Any) -> None:
    pg_db.execute(
        "CREATE TABLE public.p (id integer PRIMARY KEY)",
        "CREATE TABLE public.c (id integer PRIMARY KEY,"
        " pid integer REFERENCES p ON DELETE CASCADE, v text)",
    )
    pg, p0 = _pg(pg_db, "public.t", "public.c")
    tx(
        pg_db,
        "INSERT INTO t VALUES (1, 'a', 1)",
        "INSERT INTO t VALUES (1, 'b', 1), (2, 'c', 2)"
        " ON CONFLICT (id) DO UPDATE SET name = excluded.name",
    )
    tx(
        pg_db,
        "MERGE INTO t USING (VALUES (1, 'm'), (2, NULL), (3, 'n')) AS s(id, name) ON t.id = s.id"
        " WHEN MATCHED AND s.name IS NULL THEN DELETE"
        " WHEN MATCHED THEN UPDATE SET name = s.name"
        " WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.name, 0)",
    )
    tx(pg_db, "INSERT INTO p VALUES (1)", "INSERT INTO c VALUES (10, 1, 'x'), (11, 1, 'y')")
    tx(pg_db, "DELETE FROM p")
    p1, recs = pg.window("public.t", p0)
    # per key, the records replay to the final table
    state: dict[int, Any] = {}
    for action, new, old in rows(recs):
        if action == "DELETE":
            del state[old["id"]]
        else:
            assert (action == "UPDATE") == (new["id"] in state)
            state[new["id"]] = new
    assert sorted(state.values(), key=lambda r: r["id"]) == [
        {"id": 1, "name": "m", "qty": 1},
        {"id": 3, "name": "n", "qty": 0},
    ]
    assert pg_db.query("SELECT * FROM t ORDER BY 1") == [(1, "m", 1), (3, "n", 0)]
    cascaded = pg.changes("public.c", p0, p1)
    assert [r.db_action for r in cascaded] == ["INSERT", "INSERT", "DELETE", "DELETE"]


def test_changes_query_quotes_hostile_names(pg_db: Any) -> None:
    pg_db.execute(HOSTILE)
    pg = Pg(pg_db)
    pg.install(HNAME)
    p0 = pg.tick()
    tx(pg_db, 'INSERT INTO "Order ""x""; DROP TABLE t; --" ("select", "order") VALUES (1, 2)')
    p1 = pg.tick()
    text = pg.cap.changes_query(TableConfig(name=HNAME).ref, p0, p1)
    got = pg_db.query(f"SELECT repl_key, db_action, tablename FROM ({text}) AS q")
    assert [(a, t) for _, a, t in got] == [("INSERT", 'Order "x"; DROP TABLE t; --')]


def test_key_changes_among_single_row_statements_of_one_transaction(pg_db: Any) -> None:
    # every change recorded once, in order, whether its statement changed keys or not
    ddl = "CREATE TABLE public.t (id integer PRIMARY KEY DEFERRABLE, name text, qty integer)"
    pg, p0 = _pg(pg_db, ddl=ddl)
    tx(pg_db, "INSERT INTO t VALUES (1, 'a', 1), (2, 'b', 2), (3, 'c', 3)")
    p1 = pg.tick()
    tx(
        pg_db,
        "UPDATE t SET qty = 10 WHERE id = 1",
        "UPDATE t SET id = id + 1",
        "UPDATE t SET qty = 40 WHERE id = 4",
        "UPDATE t SET qty = 20, id = 2 WHERE id = 2",  # a "change" to the same key
    )
    tx(pg_db, "UPDATE t SET qty = 30 WHERE id = 3", "DELETE FROM t WHERE id = 2")
    _, recs = pg.window("public.t", p1)
    got = rows(recs)
    assert got[0] == ("UPDATE", {"id": 1, "name": "a", "qty": 10}, {"id": 1, "name": "a", "qty": 1})
    assert sorted(got[1:5], key=lambda r: (r[1] or r[2])["id"]) == [
        ("DELETE", None, {"id": 1, "name": "a", "qty": 10}),
        ("UPDATE", {"id": 2, "name": "a", "qty": 10}, {"id": 2, "name": "b", "qty": 2}),
        ("UPDATE", {"id": 3, "name": "b", "qty": 2}, {"id": 3, "name": "c", "qty": 3}),
        ("INSERT", {"id": 4, "name": "c", "qty": 3}, None),
    ]
    assert got[5:] == [
        ("UPDATE", {"id": 4, "name": "c", "qty": 40}, {"id": 4, "name": "c", "qty": 3}),
        ("UPDATE", {"id": 2, "name": "a", "qty": 20}, {"id": 2, "name": "a", "qty": 10}),
        ("UPDATE", {"id": 3, "name": "b", "qty": 30}, {"id": 3, "name": "b", "qty": 2}),
        ("DELETE", None, {"id": 2, "name": "a", "qty": 20}),
    ]
    assert len({r.trans_key for r in recs[:-2]}) == 1


def test_key_change_rolled_back_to_a_savepoint_is_forgotten(pg_db: Any) -> None:
    pg, p0 = _pg(pg_db)
    tx(pg_db, "INSERT INTO t VALUES (1, 'a', 1), (2, 'b', 2)")
    p1 = pg.tick()
    tx(
        pg_db,
        "SAVEPOINT s",
        "UPDATE t SET id = 5 WHERE id = 1",
        "ROLLBACK TO SAVEPOINT s",
        "UPDATE t SET qty = 3 WHERE id = 1",
        "SAVEPOINT s2",
        "UPDATE t SET id = 6 WHERE id = 2",
        "RELEASE SAVEPOINT s2",
        "UPDATE t SET qty = 7 WHERE id = 6",
    )
    _, recs = pg.window("public.t", p1)
    assert rows(recs) == [
        ("UPDATE", {"id": 1, "name": "a", "qty": 3}, {"id": 1, "name": "a", "qty": 1}),
        ("DELETE", None, {"id": 2, "name": "b", "qty": 2}),
        ("INSERT", {"id": 6, "name": "b", "qty": 2}, None),
        ("UPDATE", {"id": 6, "name": "b", "qty": 7}, {"id": 6, "name": "b", "qty": 2}),
    ]


def test_partitioned_table_is_captured_as_one_table(pg_db: Any) -> None:
    pg, p0 = _pg(
        pg_db,
        "public.ev",
        ddl="CREATE TABLE ev (id integer, day date, v text, PRIMARY KEY (id, day)) "
        "PARTITION BY RANGE (day)",
    )
    pg_db.execute(
        "CREATE TABLE ev_a PARTITION OF ev FOR VALUES FROM ('2024-01-01') TO ('2024-07-01')",
        "CREATE TABLE ev_b PARTITION OF ev FOR VALUES FROM ('2024-07-01') TO ('2025-01-01')",
    )
    tx(pg_db, "INSERT INTO ev VALUES (1, '2024-02-01', 'parent'), (2, '2024-08-01', 'parent')")
    tx(pg_db, "INSERT INTO ev_a VALUES (3, '2024-03-01', 'partition')")
    tx(pg_db, "UPDATE ev SET day = '2024-10-01' WHERE id = 1")  # moves to another partition
    tx(pg_db, "UPDATE ev_b SET v = 'changed' WHERE id = 2")
    tx(pg_db, "DELETE FROM ev_a WHERE id = 3")
    tx(pg_db, "TRUNCATE ev_b")  # one partition: its rows are deleted, not the whole table
    p1, recs = pg.window("public.ev", p0)
    got = [(a, (c or o)["id"], (c or o)["day"]) for a, c, o in rows(recs)]
    assert got[:7] == [
        ("INSERT", 1, "2024-02-01"),
        ("INSERT", 2, "2024-08-01"),
        ("INSERT", 3, "2024-03-01"),
        ("DELETE", 1, "2024-02-01"),
        ("INSERT", 1, "2024-10-01"),
        ("UPDATE", 2, "2024-08-01"),
        ("DELETE", 3, "2024-03-01"),
    ]
    assert sorted(got[7:]) == [("DELETE", 1, "2024-10-01"), ("DELETE", 2, "2024-08-01")]
    assert {r.tablename for r in recs} == {"ev"}
    # a partition made later is captured too
    pg_db.execute(
        "CREATE TABLE ev_c PARTITION OF ev FOR VALUES FROM ('2025-01-01') TO ('2026-01-01')"
    )
    tx(pg_db, "INSERT INTO ev_c VALUES (5, '2025-02-01', 'new')")
    tx(pg_db, "TRUNCATE ev")
    _p2, recs = pg.window("public.ev", p1)
    assert [(r.db_action, (r.row or {}).get("id")) for r in recs][:1] == [("INSERT", 5)]
    assert recs[-1].db_action == "TRUNCATE"
    # a partition detached is no longer the table's: its rows are not captured
    pg_db.execute("ALTER TABLE ev DETACH PARTITION ev_c")
    tx(pg_db, "INSERT INTO ev_c VALUES (6, '2025-03-01', 'detached')")
    tx(pg_db, "INSERT INTO ev VALUES (7, '2024-04-01', 'parent')")
    _p3, recs = pg.window("public.ev", _p2)
    assert [(r.db_action, r.row["id"]) for r in recs] == [("INSERT", 7)]
    assert (
        pg_db.query("SELECT count(*) FROM pg_trigger WHERE tgrelid = 'ev_c'::regclass")[0][0] == 0
    )
