# make demo: the embedded demo; make test: lint, types and the whole test suite.
# Both install what they need: a virtualenv with the pip packages, Java and Debian's JDBC jars.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
DEBS   := libpostgresql-jdbc-java libmariadb-java libxerial-sqlite-jdbc-java
# the status page is tested in a real headless browser
DEBS   += chromium chromium-driver
# promtool (Debian's prometheus package) checks and unit-tests deploy/prometheus's rules
DEBS   += prometheus
PYTEST_ARGS ?=
# two test processes (one Spark session each; an idle one takes tests queued for the other,
# so two long tests do not end up one after the other): the suite waits on databases,
# subprocesses and JVM starts far more than it computes
PYTEST_WORKERS ?= -n 2 --dist worksteal

.PHONY: demo test lint unit bench deps jars docs clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $(STAMP)

deps: $(STAMP) jars

jars:
	@missing=""; \
	for p in $(DEBS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	command -v java >/dev/null 2>&1 || missing="$$missing openjdk-17-jre-headless"; \
	if [ -n "$$missing" ]; then \
	  echo "installing$$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi

lint: $(STAMP)
	$(BIN)/ruff check src tests bench
	$(BIN)/mypy src

test: deps lint
	$(BIN)/pytest $(PYTEST_WORKERS) $(PYTEST_ARGS)

unit: $(STAMP)
	$(BIN)/pytest tests/unit $(PYTEST_ARGS)

demo: deps
	$(BIN)/syncpoint demo

# the user documentation: docs/ rendered by MkDocs (Material theme) into site/
docs: $(STAMP)
	$(BIN)/python -c "import material" 2>/dev/null || $(BIN)/python -m pip install -q -e '.[docs]'
	$(BIN)/python -m syncpoint.cli.docgen docs/commands.md
	$(BIN)/mkdocs build --strict --site-dir site

# PgQ's C trigger is what the capture bench measures against (Debian's package for the
# PostgreSQL 15 server the tests use); Londiste 3 is a peer of the apply rows: its worker,
# the pgqd ticker and the SQL side londiste create-root/create-leaf install (pgq_node,
# londiste), which python3-londiste does not pull in
# sysbench: oltp_read_write on MariaDB without capture, with triggers, with log capture
BENCH_DEBS := postgresql-15-pgq3 postgresql-15-pgq-node postgresql-15-londiste-sql pgqd python3-londiste sysbench

bench: deps
	@missing=""; \
	for p in $(BENCH_DEBS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing$$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi
	$(BIN)/python bench/table.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache site
