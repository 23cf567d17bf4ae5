# The two commands of the README: `make run` and `make test`. Both install what they need.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
# Installs come from the lock files (requirements/, made by `make lock`): the versions CI tested, not the newest
# release of the day. `make run` installs only what running needs; `make test` adds the tools and test libraries.
# Each install is remembered by a stamp named after its lock's (and pyproject.toml's) hash.
lock_hash = $(shell cat requirements/$(1).txt pyproject.toml 2>/dev/null | sha1sum | cut -c1-12)
RUN_STAMP := $(VENV)/.installed-run-$(call lock_hash,run)
DEV_STAMP := $(VENV)/.installed-dev-$(call lock_hash,dev)
# uv installs a lock in seconds where pip takes a minute (it fetches in parallel); it comes from PyPI, pinned here.
UV_VERSION := 0.13.9
UV := $(VENV)/bin/uv
# With the bytecode compiled at install, as pip does: uv does not by default, and where PYTHONDONTWRITEBYTECODE is set
# (these machines) no process could ever write it, so each one (a test worker, gunicorn's, Celery's, a command)
# compiled every module it imported: the web application's start 2.7-3.1 s of CPU against 1.0 s compiled (issue 27).
INSTALL := $(UV) pip install --quiet --python $(PY) --no-deps --compile-bytecode
# The application's own packages (installed editable, so imported from here): compiled once at install; a module
# changed since is compiled in memory when imported, as before.
COMPILE_OWN := $(PY) -m compileall -q -j 0 compliance coupons equipment >/dev/null

.PHONY: run test install install-run lock lint typecheck pytest browser-deps ldap-deps services bench clean db-roles smoke smoke-deps restore-drill floor-load

$(UV):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet uv==$(UV_VERSION)

$(RUN_STAMP): requirements/run.txt pyproject.toml | $(UV)
	$(INSTALL) -r requirements/run.txt
	$(INSTALL) -e .
	$(COMPILE_OWN)
	rm -f $(VENV)/.installed-run-*
	touch $(RUN_STAMP)

# The dev lock holds every pin of the run lock (`make lock` resolves it first and constrains the run lock to it),
# so a dev install is a run install too.
$(DEV_STAMP): requirements/dev.txt requirements/run.txt pyproject.toml | $(UV) ldap-deps
	$(INSTALL) -r requirements/dev.txt
	$(INSTALL) -e .
	$(COMPILE_OWN)
	rm -f $(VENV)/.installed-*
	touch $(DEV_STAMP) $(RUN_STAMP)

install-run: $(RUN_STAMP)

install: $(DEV_STAMP)

# Regenerate both locks from pyproject.toml after changing a dependency there (then commit requirements/). The dev
# lock takes every extra (dev, and any optional feature such as a directory sign-in) so the tests can import them
# all; the run lock is the bare dependencies at the dev lock's versions. Resolved for every Python from 3.11 on:
# a package that only some versions need carries its marker. Pins that still fit are kept; `make lock UPGRADE=1`
# moves every pin to the newest release pyproject.toml allows.
LOCK := $(UV) pip compile pyproject.toml --universal --python-version 3.11 --annotation-style line \
	--custom-compile-command "make lock"
lock: | $(UV)
	$(LOCK) --quiet $(if $(UPGRADE),--upgrade) --all-extras -o requirements/dev.txt
	$(LOCK) --quiet -c requirements/dev.txt -o requirements/run.txt
	$(LOCK) --quiet -c requirements/dev.txt --extra ldap -o requirements/run-ldap.txt

# Embedded default: SQLite under var/, demo data, and a real Celery worker and beat beside the web server on a
# broker that needs no server (a SQLite file under var/: EMBEDDED_WORKER=1, compliance/settings.py). Tasks the
# seeding enqueues (reports, mail) wait there for the worker. Ctrl-C stops the web server, the worker and beat.
EMBEDDED := env -u DATABASE_URL -u REDIS_URL EMBEDDED_WORKER=1
run: install-run
	$(EMBEDDED) $(PY) manage.py migrate --noinput
	# The foundation's demo, then each app's as its apps.py declares it (compliance/registry.py).
	$(EMBEDDED) $(PY) manage.py seed_demo --all
	$(EMBEDDED) $(PY) manage.py link_audit_chain --anchor
	@echo ""
	@echo "  Table games compliance is starting at http://127.0.0.1:8000/ with a Celery worker and beat"
	@echo "  Sign in with a demo login printed above (new passwords: $(PY) manage.py seed_demo --reset-passwords)."
	@echo "  What to try first as each role: README.md, 'The demo'."
	@echo ""
	$(EMBEDDED) PY=$(PY) bin/run-embedded

# PostgreSQL deploy step: migrate as DATABASE_OWNER_URL, then (re)grant the role of DATABASE_URL only what the
# application needs (docs/foundation.md, "What the database refuses"). Idempotent; run after every upgrade.
db-roles: install-run
	$(PY) manage.py db_roles --migrate

# Dump the database, restore it into a new one as docs/operations.md says (pg_restore --no-owner --no-acl,
# db_roles --migrate, verify_audit_chain) and compare every table's rows; non-zero on any difference. The database
# of DATABASE_URL (read as DATABASE_OWNER_URL's owner), or a scratch one on the local PostgreSQL filled with the
# demo; the copy and any scratch database are dropped at the end.
restore-drill: install
	$(PY) manage.py restore_drill

# Headless Chromium for the browser tests comes from Debian's package (root on the dev and CI machines).
browser-deps:
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = "0" ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	  else echo "chromium is not installed: browser tests will be skipped (install Debian's chromium package)"; fi; }
	@command -v pdftoppm >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = "0" ]; then DEBIAN_FRONTEND=noninteractive apt-get install -y -qq poppler-utils >/dev/null; fi; }
	@# the PDFs' embedded fonts: DejaVu Sans, and a font with CJK glyphs for names DejaVu cannot draw
	@test -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf -a -f /usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf || { \
	  if [ "$$(id -u)" = "0" ]; then DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fonts-dejavu-core fonts-droid-fallback >/dev/null; \
	  else echo "install Debian's fonts-dejavu-core and fonts-droid-fallback: PDFs print names in Helvetica or as boxes without them"; fi; }

# Directory sign-in (issue 26, item 6): the `ldap` extra (django-auth-ldap) is in the dev lock, and python-ldap
# compiles against OpenLDAP's and SASL's headers; the tests start Debian's slapd with a small directory of their own.
# Installed before the dev install (root on the dev and CI machines); `make run` (the embedded default) needs none.
ldap-deps:
	@test -x /usr/sbin/slapd -a -f /usr/include/ldap.h -a -f /usr/include/sasl/sasl.h || { \
	  if [ "$$(id -u)" = "0" ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
	    slapd ldap-utils libldap2-dev libsasl2-dev python3-dev gcc >/dev/null; \
	  else echo "install Debian's slapd, ldap-utils, libldap2-dev and libsasl2-dev: python-ldap (the dev lock) compiles against them"; fi; }

# The production smoke test (bin/smoke-production): nginx, two gunicorns, two workers and beat on this machine as
# if on two hosts, a fresh database used through the least-privilege role, driven through nginx only.
smoke-deps:
	@command -v nginx >/dev/null 2>&1 || test -x /usr/sbin/nginx || { \
	  if [ "$$(id -u)" = "0" ]; then apt-get update -qq; DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx-light >/dev/null 2>&1 || \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx >/dev/null; \
	  else echo "install Debian's nginx package for the smoke test"; exit 1; fi; }

smoke: install smoke-deps
	$(PY) bin/smoke-production

lint: install
	$(PY) -m ruff check .

typecheck: install
	$(PY) -m mypy .

pytest: install browser-deps
	$(PY) -m pytest -n 2 --dist loadgroup

# The suite's template database (tests/db_template.py: 130-odd seconds of one core whenever the code changed) is
# built beside the lint and the type check (a minute of the other core) rather than ahead of the suite's first tests.
test: install browser-deps
	@$(PY) -m tests.db_template & builder=$$!; status=0; \
	  $(MAKE) --no-print-directory lint typecheck || status=$$?; \
	  wait $$builder || echo "the test template was not built ahead: the suite builds it"; \
	  test $$status -eq 0
	$(MAKE) --no-print-directory pytest

bench: install
	$(PY) bench/run.py

# The busy floor (issue 27, item 4; bench/floor_load.py): ten minutes of 200 tables scanning coupons while finance
# processes a day, compliance produces a report and people browse, against gunicorn, a worker and beat in production
# settings on this machine, PostgreSQL's lock waits and connections watched. FLOOR_LOAD="--minutes 2 --rate 50".
floor-load: install
	$(PY) bench/floor_load.py $(FLOOR_LOAD)

clean:
	rm -rf $(VENV) var .pytest_cache .mypy_cache .ruff_cache
