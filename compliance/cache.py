"""The default cache on Redis (production, ``REDIS_URL``): Django's backend, with one Redis client per connection pool.

Django's ``RedisCacheClient.get_client`` builds a new ``redis.Redis`` for every operation, and redis-py's constructor
copies its table of some 170 response callbacks: about 0.15 ms of Python each time, measured on the development
machine (issue 27), where a Redis ``GET`` itself costs 0.09 ms. A coupon scan asks the cache several times (the
table's readiness, the API's limits), so that was a fifth of a millisecond or more of each scan spent building
objects. A ``redis.Redis`` over a pool is safe to share between threads (each command borrows a connection from the
pool), so one is kept per pool. Everything else is Django's.

:func:`count_in_window` counts a request in a window of time (the API's limits, ``coupons/api/throttling.py``): on
Redis one round trip (``SET … NX EX`` and ``INCR`` in one pipeline, any Redis from 2.6.12), where Django's ``add``
then ``incr`` took three (``SET NX``, then ``EXISTS`` and ``INCR``); on any other cache Django's ``add`` and
``incr``.
"""

from __future__ import annotations

from typing import Any

from django.core.cache.backends.redis import RedisCache as DjangoRedisCache
from django.core.cache.backends.redis import RedisCacheClient

__all__ = ["RedisCache", "count_in_window", "warm_default_cache"]


class _OneClientPerPool(RedisCacheClient):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[int, Any] = {}

    def get_client(self, key: Any = None, *, write: bool = False) -> Any:
        django: Any = self  # RedisCacheClient's private parts, missing from django-stubs
        pool = django._get_connection_pool(write)
        client = self._clients.get(id(pool))
        if client is None:
            client = self._clients[id(pool)] = django._client(connection_pool=pool)
        return client


class RedisCache(DjangoRedisCache):
    def __init__(self, server: Any, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = _OneClientPerPool

    def count(self, key: str, timeout: int) -> int:
        """Add one to ``key``'s count (created at 1, expiring ``timeout`` seconds after its first count)."""
        full = self.make_and_validate_key(key)
        django: Any = self  # RedisCache._cache, missing from django-stubs
        pipe = django._cache.get_client(full, write=True).pipeline(transaction=False)
        pipe.set(full, 0, ex=timeout, nx=True)  # the window's first request creates the count, with its end
        pipe.incr(full)
        _, used = pipe.execute()
        return int(used)


def count_in_window(key: str, timeout: int) -> int:
    """One more request counted under ``key`` in the default cache; the count so far, this one included. The count
    starts at the first request and is forgotten ``timeout`` seconds later. Atomic on Redis: two workers counting
    at once both count."""
    from django.core.cache import caches

    cache = caches["default"]
    if isinstance(cache, RedisCache):
        return cache.count(key, timeout)
    cache.add(key, 0, timeout=timeout)
    try:
        return int(cache.incr(key))
    except ValueError:  # evicted between add and incr: this request opens the window again
        cache.add(key, 1, timeout=timeout)
        return 1


def warm_default_cache() -> None:
    """Build the default cache's client now, as a web worker starts (``compliance.wsgi.settle``), rather than in the
    worker's first request: on Redis that is redis-py's import, 87 ms measured on the development machine (about
    320 ms where no bytecode is kept), which a new worker's first scan at a table paid (issue 27). No connection is
    opened: a worker still starts while Redis is down, and says so at its first request as before."""
    from django.core.cache import caches

    cache = caches["default"]
    if isinstance(cache, RedisCache):
        cache._cache  # type: ignore[attr-defined]  # noqa: B018 - the cached client, built (django-stubs lack it)
