# Thin aliases. Every target creates .venv on first use and reinstalls only when
# pyproject.toml changes (the stamp file records the last install).
SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-dev
BENCH_STAMP := $(VENV)/.installed-bench
MUTANTS_STAMP := $(VENV)/.installed-mutants

# make test talks to real services; these defaults point at the local servers.
TEST_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/cya
TEST_REDIS_URL ?= redis://127.0.0.1:6379/0
# Extra pytest arguments, e.g. make test PYTEST_ARGS="-x tests/accounts"
PYTEST_ARGS ?=
# Test processes (pytest-xdist): each has its own test database, Celery queue and cache
# keys, so the suite runs in about half the time on two cores; 0 runs it in one process
PYTEST_WORKERS ?= 2
# games per table for benchmarks/strength.py under `make bench`: 1,000 is the issue's
# measure (hours: about three a table on two free cores); `make bench STRENGTH_GAMES=40`
# for minutes
STRENGTH_GAMES ?= 1000
# make mutants PACKAGE=engine: the target (pyproject.toml [tool.cya-mutants.<target>]);
# MUTANT_CHILDREN test processes side by side, niced: the machine has two shared cores
PACKAGE ?=
MUTANT_CHILDREN ?= 2
# make run PORT=8123 serves on another port
PORT ?= 8000

.PHONY: help run test lint bench venv messages mutants engine

help:
	@echo "make run    serve on http://127.0.0.1:8000 (PORT=8123 for another; SQLite + embedded Celery broker under var/)"
	@echo "make test   run the whole suite against PostgreSQL and Redis (DATABASE_URL, REDIS_URL)"
	@echo "make lint   ruff check, ruff format --check, mypy --strict, lint-imports"
	@echo "make bench  run every script in benchmarks/ (but compare.py and search_screen.py, run by hand)"
	@echo "make engine compile the engine and the built-in strategies with mypyc (optional: without a C compiler the pure ones run)"
	@echo "make mutants PACKAGE=engine  mutation testing of one target (docs/testing.md; list: tools/mutants.py list)"
	@echo "make messages  update locale/de from the code and templates, and compile it (needs gettext)"

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	# pip >= 25.1 understands PEP 735 dependency groups (--group)
	$(BIN)/python -m pip install --quiet --upgrade "pip>=25.1"

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e . --group dev
	touch $@

$(BENCH_STAMP): pyproject.toml $(STAMP)
	$(BIN)/python -m pip install --quiet --group bench
	touch $@

$(MUTANTS_STAMP): pyproject.toml $(STAMP)
	$(BIN)/python -m pip install --quiet --group mutants
	touch $@

venv: $(STAMP)

run: $(STAMP)
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py rundev 127.0.0.1:$(PORT)

# the suite runs the pure engine (the source); tests/engine/test_compiled.py builds and
# checks the compiled one. `make test CYA_ENGINE=auto` runs it all on a `make engine` build.
test: $(STAMP)
	CYA_ENGINE="$${CYA_ENGINE:-pure}" \
	DATABASE_URL="$${DATABASE_URL:-$(TEST_DATABASE_URL)}" \
	REDIS_URL="$${REDIS_URL:-$(TEST_REDIS_URL)}" \
	$(BIN)/pytest -n $(PYTEST_WORKERS) $(PYTEST_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy .
	$(BIN)/lint-imports

# up to date: nothing happens; no C compiler or mypyc: one line, and the pure engine runs
engine: $(STAMP)
	$(BIN)/python tools/build_engine.py || [ $$? -eq 3 ]

bench: $(BENCH_STAMP) engine
	@shopt -s nullglob; scripts=(benchmarks/[!_]*.py); \
	if [ $${#scripts[@]} -eq 0 ]; then echo "No benchmarks in benchmarks/ yet."; fi; \
	for script in "$${scripts[@]}"; do \
	  case "$$script" in benchmarks/compare.py|benchmarks/search_screen.py) continue;; esac; \
	  echo "== $$script"; \
	  if [ "$$script" = benchmarks/strength.py ]; then $(BIN)/python "$$script" --games $(STRENGTH_GAMES); \
	  else $(BIN)/python "$$script"; fi; done

mutants: $(MUTANTS_STAMP)
	@if [ -z "$(PACKAGE)" ]; then $(BIN)/python tools/mutants.py list; \
	  echo "make mutants PACKAGE=<one of the above>"; exit 2; fi
	DATABASE_URL="$${DATABASE_URL:-$(TEST_DATABASE_URL)}" \
	REDIS_URL="$${REDIS_URL:-$(TEST_REDIS_URL)}" \
	nice -n 10 $(BIN)/python tools/mutants.py run $(PACKAGE) --max-children $(MUTANT_CHILDREN)

messages: $(STAMP)
	$(BIN)/python manage.py makemessages -l de --no-location --ignore=.venv --ignore=var --ignore=tests --ignore=benchmarks --ignore=sdk
	$(BIN)/python manage.py compilemessages -l de --ignore=.venv
