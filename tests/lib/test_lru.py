"""The shared least-recently-used cache (lib/lru.py): bounded by weight, the oldest use dropped first."""

from __future__ import annotations

from lib.lru import MISSING, LruCache


def test_it_drops_the_least_recently_used_value_first():
    cache = LruCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    cache.get("a")  # now "b" is the least recently used

    cache.put("c", 3)

    assert (cache.get("a"), cache.get("b"), cache.get("c")) == (1, MISSING, 3)


def test_it_keeps_a_none_value_apart_from_a_missing_one():
    cache = LruCache(2)
    cache.put("nothing", None)

    assert cache.get("nothing") is None
    assert cache.get("other") is MISSING
    assert cache.get("other", None) is None


def test_it_keeps_the_first_value_stored_for_a_key():
    cache = LruCache(2)
    first = cache.put("k", ["first"])

    assert cache.put("k", ["second"]) is first
    assert cache.get("k") is first


def test_it_bounds_the_total_weight_and_skips_a_value_heavier_than_the_limit():
    cache = LruCache(10, len)
    cache.put("a", "xxxx")
    cache.put("b", "yyyy")
    cache.put("c", "zzzz")  # 12 > 10: "a" goes

    assert cache.weight == 8 and len(cache) == 2 and cache.get("a") is MISSING
    assert cache.put("huge", "w" * 11) == "w" * 11
    assert cache.get("huge") is MISSING and cache.weight == 8


def test_it_forgets_everything_when_cleared():
    cache = LruCache(10, len)
    cache.put("a", "xx")

    cache.clear()

    assert (len(cache), cache.weight, cache.get("a")) == (0, 0, MISSING)
