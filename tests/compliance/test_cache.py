"""The default cache on Redis (compliance.cache): one client per pool, and a request counted in one round trip."""

from __future__ import annotations

import threading
import uuid
from typing import Any

import pytest
from django.core.cache import caches
from django.test import override_settings

from compliance.cache import RedisCache, count_in_window
from compliance.testing import redis_up

pytestmark = pytest.mark.skipif(not redis_up(), reason="needs Redis on 127.0.0.1:6379 (make test / CI start it)")


@pytest.fixture
def redis_cache() -> Any:
    # Redis database 15, the tests' own; a prefix of this test's, so runs side by side never share a key.
    config = {"BACKEND": "compliance.cache.RedisCache", "LOCATION": "redis://127.0.0.1:6379/15",
              "KEY_PREFIX": f"test-cache-{uuid.uuid4().hex}"}
    with override_settings(CACHES={"default": config}):
        yield caches["default"]


def test_the_cache_keeps_one_client_per_pool(redis_cache):
    assert isinstance(redis_cache, RedisCache)
    redis_cache.set("a", 1)
    client = redis_cache._cache.get_client()
    assert redis_cache.get("a") == 1 and redis_cache._cache.get_client() is client
    assert redis_cache._cache.get_client(write=True) is client  # one server: reads and writes share its pool


def test_a_count_starts_at_one_expires_from_its_first_request_and_counts_every_request(redis_cache):
    key = "api-throttle:token:7:60:1"
    assert [count_in_window(key, 65) for _ in range(3)] == [1, 2, 3]
    client, full = redis_cache._cache.get_client(), redis_cache.make_and_validate_key(key)
    assert 60 < client.ttl(full) <= 65
    client.expire(full, 30)
    count_in_window(key, 65)
    assert client.ttl(full) <= 30  # a later request never moves the window's end

    def count_many() -> None:
        for _ in range(50):
            count_in_window("together", 60)

    threads = [threading.Thread(target=count_many) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert count_in_window("together", 60) == 201  # four workers counting at once: every request counted


def test_another_cache_counts_with_add_and_incr():
    with override_settings(CACHES={"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache",
                                               "LOCATION": f"count-{uuid.uuid4().hex}"}}):
        assert [count_in_window("k", 60) for _ in range(3)] == [1, 2, 3]
