"""gunicorn for the web process (deploy/systemd/compliance-web.service; docs/operations.md).

Sync workers behind nginx, which buffers slow clients. 2 x cores + 1 workers; a request that runs longer than the
timeout is a bug (reports and screenings run in Celery workers, never in a request).
"""

import multiprocessing
import os

bind = os.environ.get("GUNICORN_BIND", "127.0.0.1:8001")
workers = int(os.environ.get("GUNICORN_WORKERS", multiprocessing.cpu_count() * 2 + 1))
worker_class = "sync"
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "60"))
graceful_timeout = 30
keepalive = 5
# Recycle a worker now and then (a guard against slow leaks), but rarely: a new worker imports the application and
# warms up again, 2-5 s of CPU measured on the 2-core machine (issue 27). At 2,000 requests, the busy floor's 300
# scans a second over 5 workers recycled one every 7 s — a third of a core spent booting; at 50,000 a worker lives
# about 14 minutes at that peak and hours on an ordinary day.
max_requests = 50_000
max_requests_jitter = 5_000
# The application logs one JSON line per request itself (ACCESS_LOG, logger compliance.access: the request id,
# the person, the facility, the status and the time taken); gunicorn's plain-text access log would repeat it.
# GUNICORN_ACCESSLOG=- turns it on.
accesslog = os.environ.get("GUNICORN_ACCESSLOG") or None
access_log_format = '%(h)s "%(r)s" %(s)s %(b)s %(M)sms request_id=%({x-request-id}i)s'
errorlog = "-"
forwarded_allow_ips = os.environ.get("GUNICORN_FORWARDED_ALLOW_IPS", "127.0.0.1")
