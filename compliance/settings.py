"""Settings for the table games compliance system.

Every value comes from the environment through :mod:`compliance.env`. With nothing set,
the app runs embedded: a SQLite file under ``var/`` and Celery tasks run eagerly in-process.
``DATABASE_URL=postgres://…`` and ``REDIS_URL=redis://…`` switch to PostgreSQL and a real
worker and one beat (``celery -A compliance worker`` on any hosts, ``celery -A compliance beat`` on one: docs/operations.md). ``EMBEDDED_WORKER=1`` (``make run``) keeps the SQLite file
and runs a real worker + beat on a broker that needs no server (kombu's SQLAlchemy transport on a SQLite file
under ``var/``). ``DJANGO_ENV=production`` turns on the hardened settings that ``manage.py check --deploy``
verifies.
"""

from __future__ import annotations

import ipaddress
from datetime import timedelta
from pathlib import Path

from compliance.directory_settings import BACKEND as DIRECTORY_BACKEND
from compliance.directory_settings import directory_settings
from compliance.env import (
    ImproperlyConfiguredEnv,
    env_admins,
    env_bool,
    env_database,
    env_int,
    env_list,
    env_rate,
    env_str,
)
from compliance.seal_keys import KEY_ID, parse_retired_keys
from compliance.secret_file import embedded_secret

BASE_DIR = Path(__file__).resolve().parent.parent
# templates/ and static/: at the top of a checkout; an installed wheel carries them in compliance/bundled/ (setup.py).
_BUNDLED = Path(__file__).resolve().parent / "bundled"
SITE_FILES_DIR = _BUNDLED if _BUNDLED.is_dir() else BASE_DIR
VAR_DIR = Path(env_str("VAR_DIR", str(BASE_DIR / "var")))

DJANGO_ENV = env_str("DJANGO_ENV", "development")
if DJANGO_ENV not in {"development", "test", "production"}:
    raise ImproperlyConfiguredEnv(f"DJANGO_ENV={DJANGO_ENV!r}: use development, test or production")
PRODUCTION = DJANGO_ENV == "production"

DEBUG = env_bool("DEBUG", default=not PRODUCTION)
if PRODUCTION and DEBUG:
    raise ImproperlyConfiguredEnv("DEBUG must be off when DJANGO_ENV=production")

SECRET_KEY = env_str(
    "SECRET_KEY",
    "dev-only-insecure-key-0123456789-never-use-in-production-abcdefghijklmnopqrstuvwxyz",
    required=PRODUCTION,
)
if PRODUCTION and (len(SECRET_KEY) < 50 or SECRET_KEY.startswith("dev-only")):
    raise ImproperlyConfiguredEnv("SECRET_KEY must be a random string of at least 50 characters in production")
# Earlier keys while sessions and password-reset links made with them run out (rotating SECRET_KEY).
SECRET_KEY_FALLBACKS = env_list("SECRET_KEY_FALLBACKS", [])

# The key of the audit chain's seals (compliance.chain, issue 9), never kept in the database: from the
# environment in production; made once under var/ and reused for the embedded default; fixed in tests.
AUDIT_CHAIN_KEY = env_str("AUDIT_CHAIN_KEY", required=PRODUCTION)
if PRODUCTION and len(AUDIT_CHAIN_KEY) < 32:
    raise ImproperlyConfiguredEnv("AUDIT_CHAIN_KEY must be a random string of at least 32 characters in production")
if not AUDIT_CHAIN_KEY:
    AUDIT_CHAIN_KEY = "test-only-audit-chain-key" if DJANGO_ENV == "test" else embedded_secret(VAR_DIR / "audit-chain.key")
# Seals carry the id of the key that made them (compliance.seal_keys): rotating the key keeps the old ones,
# by id, for checking only. docs/foundation.md, "Where the key lives".
AUDIT_CHAIN_KEY_ID = env_str("AUDIT_CHAIN_KEY_ID", "1")
if not KEY_ID.match(AUDIT_CHAIN_KEY_ID):
    raise ImproperlyConfiguredEnv("AUDIT_CHAIN_KEY_ID: letters, digits, '.', '_' or '-', at most 16 characters")
try:
    AUDIT_CHAIN_RETIRED_KEYS = parse_retired_keys(env_str("AUDIT_CHAIN_RETIRED_KEYS", ""))
except ValueError as error:
    raise ImproperlyConfiguredEnv(str(error)) from None
if AUDIT_CHAIN_RETIRED_KEYS.get(AUDIT_CHAIN_KEY_ID, AUDIT_CHAIN_KEY) != AUDIT_CHAIN_KEY:
    raise ImproperlyConfiguredEnv("AUDIT_CHAIN_RETIRED_KEYS holds another key under the current AUDIT_CHAIN_KEY_ID")
# The full verification's time limit (the daily incremental one is far shorter).
AUDIT_VERIFY_TIME_LIMIT_SECONDS = env_int("AUDIT_VERIFY_TIME_LIMIT_SECONDS", 3 * 3600, minimum=60)

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", [] if PRODUCTION else ["localhost", "127.0.0.1", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "simple_history",
    "django_otp",
    "django_otp.plugins.otp_totp",
    "django_otp.plugins.otp_static",  # backup codes (compliance/second_factor.py)
    "axes",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI's files, vendored: /api/docs/ fetches nothing from a CDN
    "compliance",
    "coupons",
    "equipment",
    "compliance.exclusion",
    "compliance.staffing",
    "compliance.reports",
    "compliance.games",
    "compliance.providers",
    "compliance.submissions",
    "compliance.newgames",
]
if DJANGO_ENV == "test":
    # A small app of regulated records used only to test the foundation's mechanisms.
    INSTALLED_APPS.append("tests.testapp")
    # Roles, permissions and content types are the database owner's (the application role only reads them):
    # the test flush restores them as the owner, so the copy a serialized_rollback test restores leaves them out.
    TEST_NON_SERIALIZED_APPS = ["django.contrib.contenttypes", "django.contrib.auth"]

MIDDLEWARE = [
    "compliance.health.HealthMiddleware",  # /healthz and /readyz: before the host check and the HTTPS redirect
    "compliance.log_context.RequestIdMiddleware",  # every log line of the request carries its id
    "compliance.after_response.AfterResponseMiddleware",  # work a request leaves until its answer has gone
    "django.middleware.security.SecurityMiddleware",
    "compliance.security.ContentSecurityPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "compliance.request_limits.RequestLimitsMiddleware",  # too large, or a NUL: refused before any view reads it
    # A table scanner's well-formed scan answered here, without the session and person middleware below that
    # do nothing for it; every other request goes on (coupons/api/front.py; SCANNER_FRONT_DOOR=off: none answered)
    "coupons.api.front.ScannerFrontMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django_otp.middleware.OTPMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "compliance.middleware.AccountSecurityMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "compliance.middleware.ActingUserMiddleware",
    "compliance.middleware.InspectorReadOnlyMiddleware",
    "compliance.middleware.FacilityMiddleware",
    "compliance.log_context.RequestPersonMiddleware",  # ... and, from here on, the person and the facility
    "django.contrib.auth.middleware.LoginRequiredMiddleware",
    "axes.middleware.AxesMiddleware",  # last: turns a locked-out sign-in into the page that says so
]

ROOT_URLCONF = "compliance.urls"

# The redemption API (coupons/api): scanner tokens or the web session; one JSON error shape.
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "coupons.api.authentication.ScannerTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["coupons.api.parsers.JSONParser"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "coupons.api.errors.exception_handler",
    "DEFAULT_THROTTLE_CLASSES": ["coupons.api.throttling.ScannerTokenThrottle", "coupons.api.throttling.PersonThrottle"],
}
# Limits that stop a runaway client, never a table (coupons/api/throttling.py; 429 with Retry-After). A dealer
# scans a coupon, reads the answer and lays out the wager: at the busiest craps table a scan every few seconds,
# a burst of a few in one. 600 a minute per scanner token (ten a second, for a whole minute) is many times that,
# and a client looping on a retry reaches it in seconds. A person's session gets 1,200 a minute: reading a busy
# day's redemptions page by page, or scanning at the table for a dealer. "off" turns a limit off (the
# redemption bench: one token at hundreds a second). Counted in the default cache: Redis, shared by every worker.
# The table scanners' scans answered before the session and person middleware (coupons/api/front.py): on by
# default; "off" sends every scan through the whole stack and DRF's view (the same reply, more CPU a scan).
SCANNER_FRONT_DOOR = env_bool("SCANNER_FRONT_DOOR", default=True)
API_THROTTLE_TOKEN = env_rate("API_THROTTLE_TOKEN", "600/min")
API_THROTTLE_USER = env_rate("API_THROTTLE_USER", "1200/min")
SPECTACULAR_SETTINGS = {
    "TITLE": "Table games compliance API",
    "DESCRIPTION": "Match Play Coupon redemption at the tables (58 Pa. Code § 525.22, § 525.21(q)). Every error has "
                   "the `Error` shape.",
    "VERSION": "1",
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
}
WSGI_APPLICATION = "compliance.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [SITE_FILES_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "compliance.context_processors.shell",
            ],
        },
    },
]

DATABASES = {"default": env_database("DATABASE_URL", str(VAR_DIR / "compliance.sqlite3"))}
# PostgreSQL: the role that owns the tables, for `manage.py db_roles --migrate` (deploy step only). The
# application never connects with it: DATABASE_URL names a role that owns nothing (docs/foundation.md).
DATABASE_OWNER = env_database("DATABASE_OWNER_URL", "") if env_str("DATABASE_OWNER_URL") else None
if DATABASE_OWNER and DATABASE_OWNER["ENGINE"] != "django.db.backends.postgresql":
    raise ImproperlyConfiguredEnv("DATABASE_OWNER_URL must be a postgres:// URL (the embedded SQLite has no roles)")
if DATABASE_OWNER and DATABASE_OWNER["NAME"] != DATABASES["default"]["NAME"]:
    raise ImproperlyConfiguredEnv("DATABASE_OWNER_URL and DATABASE_URL must name the same database")
if str(DATABASES["default"]["ENGINE"]).endswith("sqlite3") or env_bool("EMBEDDED_WORKER", default=False):
    VAR_DIR.mkdir(parents=True, exist_ok=True)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator", "OPTIONS": {"min_length": 12}},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
if env_bool("FAST_PASSWORD_HASHER", default=False):
    # Tests only: signatures re-check the password on every signing.
    PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# django-axes first: it refuses a locked-out sign-in before any password is checked.
AUTHENTICATION_BACKENDS = ["axes.backends.AxesStandaloneBackend", "compliance.auth.ActiveProfileBackend"]
# Directory sign-in (issue 26, item 6): with LDAP_SERVER_URI set, the people of the casino's LDAP directory or Active
# Directory sign in and sign with their directory password and hold the roles their groups give
# (compliance/directory.py; every LDAP_* variable: compliance/directory_settings.py, docs/operations.md). Local
# accounts (the break-glass administrator) keep their own passwords, checked first.
DIRECTORY_SIGN_IN: dict[str, object] | None = None
globals().update(directory_settings())
if DIRECTORY_SIGN_IN:
    AUTHENTICATION_BACKENDS.append(DIRECTORY_BACKEND)

# The proxies whose X-Forwarded-For is believed (compliance/client_address.py): addresses or networks, e.g.
# "127.0.0.1,10.0.0.0/24" for nginx on the same host and the load balancers. Empty: REMOTE_ADDR is the client.
TRUSTED_PROXIES = env_list("TRUSTED_PROXIES")
for _proxy in TRUSTED_PROXIES:
    try:
        ipaddress.ip_network(_proxy, strict=False)
    except ValueError:
        raise ImproperlyConfiguredEnv(f"TRUSTED_PROXIES: {_proxy!r} is not an address or a network") from None

# Sign-in (issues 9 and 22; compliance/accounts.py). Five failures for one username lock that username for 15
# minutes, wherever they came from; never an address alone (behind a proxy, or a casino's NAT, one address is
# everyone's). The answer is the same whether or not the account exists.
AXES_FAILURE_LIMIT = env_int("AXES_FAILURE_LIMIT", 5, minimum=1)
AXES_COOLOFF_TIME = timedelta(minutes=15)
AXES_LOCKOUT_PARAMETERS = ["username", ["username", "ip_address"]]
AXES_CLIENT_IP_CALLABLE = "compliance.client_address.client_address"
AXES_RESET_ON_SUCCESS = True
# A try during a lock-out does not extend it (the lock ends 15 minutes after the failure that set it).
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_LOCKOUT_CALLABLE = "compliance.views_accounts.locked_out"
# What axes never writes in the clear into its records: a code typed with a wrong password may still be valid.
AXES_SENSITIVE_PARAMETERS = ["username", "ip_address", "otp_token", "password"]
# History is read in the admin, never restored from it: a correction is a record of its own.
SIMPLE_HISTORY_REVERT_DISABLED = True
AXES_VERBOSE = False
# TOTP codes (django-otp) for the roles in compliance.accounts.SECOND_FACTOR_ROLES: the issuer authenticator
# apps show beside the code.
OTP_TOTP_ISSUER = env_str("OTP_TOTP_ISSUER", "Table games compliance")
# A session unused for this long ends (compliance.middleware.AccountSecurityMiddleware); SESSION_COOKIE_AGE
# below still ends every session after one shift.
SESSION_IDLE_MINUTES = env_int("SESSION_IDLE_MINUTES", 30, minimum=1)

LOGIN_URL = "login"
# A set-password link (compliance/password_links.py) works once, for 24 hours.
PASSWORD_RESET_TIMEOUT = 24 * 3600
LOGIN_REDIRECT_URL = "dashboard"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-us"
# The facility's clock: gaming days, 24-hour dice clocks and quarter ends are in this zone.
TIME_ZONE = env_str("FACILITY_TIME_ZONE", "America/New_York")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(env_str("STATIC_ROOT", str(BASE_DIR / "staticfiles")))
STATICFILES_DIRS = [SITE_FILES_DIR / "static"]
MEDIA_URL = "media/"
MEDIA_ROOT = Path(env_str("MEDIA_ROOT", str(VAR_DIR / "media")))
STORAGES = {
    # Uploaded files (a facility's logo) live in the database by default, so every web and worker host reads the
    # same bytes with no shared disk (compliance/storage.py); another backend (object storage) by FILE_STORAGE.
    "default": {"BACKEND": env_str("FILE_STORAGE", "compliance.storage.DatabaseStorage")},
    "staticfiles": {
        "BACKEND": (
            "whitenoise.storage.CompressedManifestStaticFilesStorage"
            if PRODUCTION
            else "django.contrib.staticfiles.storage.StaticFilesStorage"
        )
    },
}
FILE_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024
# The largest request body accepted (compliance/request_limits.py), refused by its Content-Length before it is
# read: a patron list of 200,000 patrons is about 15 MB. The proxy's client_max_body_size should match.
MAX_REQUEST_BYTES = env_int("MAX_REQUEST_BYTES", 32 * 1024 * 1024, minimum=1024 * 1024)

# Mail: deviation reports and alerts go out through Django's mail backend.
EMAIL_BACKEND = env_str(
    "EMAIL_BACKEND",
    "django.core.mail.backends.smtp.EmailBackend" if PRODUCTION else "django.core.mail.backends.console.EmailBackend",
)
EMAIL_HOST = env_str("EMAIL_HOST", "localhost")
EMAIL_PORT = env_int("EMAIL_PORT", 25, minimum=1)
EMAIL_HOST_USER = env_str("EMAIL_HOST_USER")
EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", default=False)
EMAIL_USE_SSL = env_bool("EMAIL_USE_SSL", default=False)
if EMAIL_USE_TLS and EMAIL_USE_SSL:
    raise ImproperlyConfiguredEnv("EMAIL_USE_TLS and EMAIL_USE_SSL are both on: STARTTLS (587) or TLS from the start "
                                  "(465), not both")
# Seconds a mail connection may take: a hung server fails the send, which compliance.notifications retries.
EMAIL_TIMEOUT = env_int("EMAIL_TIMEOUT", 10, minimum=1)
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "compliance@localhost")
# Bureau of Casino Compliance address for reports the regulations send to the Bureau.
BCC_BUREAU_EMAIL = env_str("BUREAU_OF_CASINO_COMPLIANCE_EMAIL", "bcc-bureau@localhost")
# Internal audit, to whom exceptions in serial-number accounting are reported within 2 days.
INTERNAL_AUDIT_EMAIL = env_str("INTERNAL_AUDIT_EMAIL")

# Celery: a real worker and beat on Redis with REDIS_URL; on a broker that needs no server with EMBEDDED_WORKER=1
# (`make run`: kombu's SQLAlchemy transport on a SQLite file under var/, bin/run-embedded starts the worker and
# beat); with neither (the tests, a bare runserver), eager in-process.
REDIS_URL = env_str("REDIS_URL")
EMBEDDED_WORKER = env_bool("EMBEDDED_WORKER", default=False)
if EMBEDDED_WORKER and REDIS_URL:
    raise ImproperlyConfiguredEnv("EMBEDDED_WORKER=1 runs Celery without a server; unset it to use REDIS_URL")
if PRODUCTION and not REDIS_URL:
    # Without a broker every task would run inside the web request and beat would never run: no equipment sweep, no
    # wager-limit change taking effect, no chain linking, no quarterly report, no daily verification.
    raise ImproperlyConfiguredEnv("REDIS_URL must be set in production: the worker and beat need a broker (without "
                                  "one, the equipment sweep, wager-limit changes, chain linking and the scheduled "
                                  "reports never run)")
CELERY_BROKER_URL = REDIS_URL or (
    f"sqla+sqlite:///{(VAR_DIR / 'celery-broker.sqlite3').resolve()}" if EMBEDDED_WORKER else "memory://"
)
CELERY_RESULT_BACKEND = REDIS_URL or None
CELERY_TASK_ALWAYS_EAGER = not (REDIS_URL or EMBEDDED_WORKER)
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TIMEZONE = TIME_ZONE
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Beat's schedule is not here: each app declares its entries in its apps.py (``beat``), and compliance/celery.py
# hands their union (compliance.registry.beat_schedule) to beat when it starts.

CACHES = {
    "default": (
        {"BACKEND": "compliance.cache.RedisCache", "LOCATION": REDIS_URL}  # Django's, one client a pool
        if REDIS_URL
        # The embedded worker and the web server are two processes: what one caches (a table's readiness
        # generation, a report's heartbeat) the other must see.
        else {"BACKEND": "django.core.cache.backends.filebased.FileBasedCache", "LOCATION": str(VAR_DIR / "cache")}
        if EMBEDDED_WORKER
        else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
    )
}

SESSION_COOKIE_AGE = env_int("SESSION_COOKIE_AGE", 8 * 3600, minimum=300)  # one shift
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"

if PRODUCTION:
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", default=True)
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31_536_000, minimum=0)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    CSRF_COOKIE_HTTPONLY = True
    if not ALLOWED_HOSTS:
        raise ImproperlyConfiguredEnv("ALLOWED_HOSTS must list the host names the app answers to in production")

# Logs (issue 26, item 4): one line per record with time, level, logger, the request id, the person and the facility
# (compliance.log_context); JSON lines in production (python-json-logger), plain text otherwise. Errors of requests
# are mailed to ADMINS when it is set.
LOG_FORMAT = env_str("LOG_FORMAT", "json" if PRODUCTION else "text")
if LOG_FORMAT not in ("json", "text"):
    raise ImproperlyConfiguredEnv(f"LOG_FORMAT={LOG_FORMAT!r}: use json or text")
# One JSON line per request from the application (compliance.access: method, path, status, duration, request id,
# person, facility); gunicorn's own access log stays off (deploy/gunicorn.conf.py).
ACCESS_LOG = env_bool("ACCESS_LOG", default=PRODUCTION)
ADMINS = env_admins("ADMINS")
SERVER_EMAIL = env_str("SERVER_EMAIL", DEFAULT_FROM_EMAIL)
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {
        "context": {"()": "compliance.log_context.ContextFilter"},
        "require_debug_false": {"()": "django.utils.log.RequireDebugFalse"},
    },
    "formatters": {
        "json": {
            "()": "pythonjsonlogger.json.JsonFormatter",
            # "time": ISO 8601 in UTC with its offset, e.g. 2026-11-28T10:38:23.104000+00:00 (hosts' clocks may differ)
            "fmt": "%(levelname)s %(name)s %(message)s %(request_id)s %(user)s %(facility)s",
            "timestamp": "time",
            "rename_fields": {"levelname": "level", "name": "logger"},
        },
        "text": {"format": "%(asctime)s %(levelname)s %(name)s [%(request_id)s %(user)s %(facility)s] %(message)s"},
    },
    "handlers": {
        "console": {"class": "logging.StreamHandler", "formatter": LOG_FORMAT, "filters": ["context"]},
        "mail_admins": {"class": "django.utils.log.AdminEmailHandler", "level": "ERROR",
                        "filters": ["context", "require_debug_false"]},
    },
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    "loggers": {"django.request": {"handlers": ["mail_admins"], "level": "ERROR", "propagate": True}}
    if ADMINS else {},
}
# Errors also to an error tracker speaking Sentry's protocol (a self-hosted Sentry or GlitchTip), when a DSN is set
# (ERROR_TRACKER_DSN or ERROR_TRACKER_DSN_FILE): the error and where, never what a person typed
# (compliance/error_tracker.py).
ERROR_TRACKER_DSN = env_str("ERROR_TRACKER_DSN")
if ERROR_TRACKER_DSN:
    from compliance.error_tracker import start as _start_error_tracker

    _start_error_tracker(ERROR_TRACKER_DSN, environment=DJANGO_ENV, release=env_str("RELEASE", "0.1.0"))
# A worker in production logs as the web servers do (its own formatting would drop the request context and JSON).
CELERY_WORKER_HIJACK_ROOT_LOGGER = not PRODUCTION
# Reports as Celery jobs (compliance.reports): a job is stopped past its time limit (soft: it marks itself
# failed with the reason; hard: the worker kills it and the stuck-run sweep marks it failed).
REPORTS_TIME_LIMIT_SECONDS = env_int("REPORTS_TIME_LIMIT_SECONDS", 20 * 60, minimum=60, maximum=6 * 3600)
# A task whose worker died without acknowledging it (acks_late) is delivered again by Redis after this long:
# longer than the longest task's hard limit (a report; a mailing screening, 25 minutes), so a task still running
# is never delivered twice, and short enough that a report whose whole worker was killed is finished by the
# redelivery before the stuck-run sweep (compliance.reports.services.runs_fail_stuck) gives up on it.
CELERY_BROKER_TRANSPORT_OPTIONS: dict[str, object] = {
    "visibility_timeout": max(REPORTS_TIME_LIMIT_SECONDS, 25 * 60) + 10 * 60
}
if EMBEDDED_WORKER:
    # The SQLAlchemy transport hands its options to create_engine: the SQLite file's lock wait, nothing of Redis's.
    CELERY_BROKER_TRANSPORT_OPTIONS = {"connect_args": {"timeout": 30}}
# A report being produced beats every 15 s (compliance/reports/heartbeat.py); one that has not beaten for this
# long lost its worker, and the sweep (beat, compliance/reports/apps.py) hands it to another at once.
REPORTS_HEARTBEAT_SECONDS = env_int("REPORTS_HEARTBEAT_SECONDS", 45, minimum=3, maximum=600)
