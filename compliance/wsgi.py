import gc
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "compliance.settings")
application = get_wsgi_application()


def static_files_collected() -> None:
    """Refuse to start a web worker whose static files were never collected. Production names each static file by
    its content's hash from the manifest ``collectstatic`` writes into ``STATIC_ROOT``
    (``CompressedManifestStaticFilesStorage``); without it every page that names one, the not-found page included,
    fails with "Missing staticfiles manifest entry" and answers 500. Saying so once, at the start, in words, is
    better than a server that starts and fails every page (issue 27). Settings that serve static files from their
    sources (development, the tests) are not concerned."""
    from django.conf import settings
    from django.contrib.staticfiles.storage import ManifestFilesMixin
    from django.core.exceptions import ImproperlyConfigured
    from django.core.files.storage import storages

    storage = storages["staticfiles"]
    if isinstance(storage, ManifestFilesMixin) and not storage.exists(storage.manifest_name):
        raise ImproperlyConfigured(
            f"The static files were not collected into STATIC_ROOT ({settings.STATIC_ROOT}): every page would answer "
            "500. Run `deploy/compliance-admin collectstatic --noinput` (docs/operations.md, installing and "
            "upgrading) and start the web server again.")


def settle() -> None:
    """Refuse to start without the static files collected (:func:`static_files_collected`); import what the first
    request would (the URLconf and every view it names, the patterns ``reverse()`` compiles, the cache's client),
    then move everything loaded so far out of the cyclic garbage collector's sight (``gc.freeze``): it lives as long
    as the process, and a full collection walking it stalled one request in twenty by about a quarter of a second
    (issue 27, the pages measured on a year of data: 244 ms a collection). What requests allocate afterwards is
    collected as before."""
    from django.urls import get_resolver

    from compliance.cache import warm_default_cache

    static_files_collected()
    resolver = get_resolver()
    resolver.url_patterns  # noqa: B018 - imports the URLconf and its views now, not in a request
    resolver.reverse_dict  # noqa: B018 - and the names' patterns, compiled at the first reverse() (45 ms)
    warm_default_cache()
    gc.collect()
    gc.freeze()


settle()
