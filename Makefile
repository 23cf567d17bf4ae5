# The two commands of the README: `make run` and `make test`. Both install what they need.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell sha1sum pyproject.toml | cut -c1-12)

.PHONY: run test install lint typecheck pytest browser-deps ldap-deps services bench clean db-roles smoke smoke-deps restore-drill

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[dev]"
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

install: $(STAMP)

# Embedded default: SQLite under var/, demo data, and a real Celery worker and beat beside the web server on a
# broker that needs no server (a SQLite file under var/: EMBEDDED_WORKER=1, compliance/settings.py). Tasks the
# seeding enqueues (reports, mail) wait there for the worker. Ctrl-C stops the web server, the worker and beat.
EMBEDDED := env -u DATABASE_URL -u REDIS_URL EMBEDDED_WORKER=1
run: install
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
db-roles: install
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

# Directory sign-in (issue 26, item 6): the optional `ldap` extra (django-auth-ldap; python-ldap compiles against
# OpenLDAP's and SASL's headers), and Debian's slapd, which its tests start with a small directory of their own.
# Installed for the tests only: `make run` (the embedded default) needs none of it.
LDAP_STAMP := $(VENV)/.ldap-$(shell sha1sum pyproject.toml | cut -c1-12)
$(LDAP_STAMP): $(STAMP)
	@test -x /usr/sbin/slapd -a -f /usr/include/ldap.h -a -f /usr/include/sasl/sasl.h || { \
	  if [ "$$(id -u)" = "0" ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
	    slapd ldap-utils libldap2-dev libsasl2-dev python3-dev gcc >/dev/null; \
	  else echo "install Debian's slapd, ldap-utils, libldap2-dev and libsasl2-dev: directory sign-in's tests are skipped without them"; fi; }
	@if $(PY) -m pip install --quiet -e ".[ldap]"; then rm -f $(VENV)/.ldap-* && touch $@; \
	  else echo "django-auth-ldap did not install: directory sign-in's tests are skipped"; fi

ldap-deps: $(LDAP_STAMP)

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

pytest: install browser-deps ldap-deps
	$(PY) -m pytest -n 2 --dist loadgroup

test: lint typecheck pytest

bench: install
	$(PY) bench/run.py

clean:
	rm -rf $(VENV) var .pytest_cache .mypy_cache .ruff_cache
