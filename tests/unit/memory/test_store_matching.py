"""The stores' filters and namespace listings (memory/stores/matching.py) select what LangGraph's
own InMemoryStore selects from the same items, and a store built on them (SqliteStore) answers
the same search as InMemoryStore does."""

from __future__ import annotations

import pytest
from langgraph.store.base import ListNamespacesOp, MatchCondition
from langgraph.store.memory import InMemoryStore

from memory.stores.matching import listed_namespaces, value_matches
from memory.stores.sqlite_store import SqliteStore
from tests.unit.fakes import HashEmbeddings

# every item has a number where a filter compares numbers: LangGraph's in-memory store raises on
# a text or a missing field there, where ours selects nothing (as PostgreSQL's jsonb compares)
ITEMS = {
    ("reflections", "default"): {
        "a": {"score": 3, "kind": "insight", "tags": ["x", "y"], "meta": {"site": "shop", "n": 0}},
        "b": {"score": 7.5, "kind": "reflection", "tags": ["x"], "meta": {"site": "wiki", "n": 1}},
        "c": {"score": 8, "kind": "reflection", "meta": {"site": "shop", "n": 2}},
    },
    ("reflections", "team", "alice"): {"d": {"score": 1, "kind": "insight", "meta": {"n": 5}}},
    ("workflows", "shop"): {"e": {"score": 9, "kind": "workflow", "meta": {"n": 3}}},
}
FILTERS = [
    {"kind": "insight"},
    {"kind": {"$ne": "insight"}},
    {"score": {"$gt": 2}},
    {"score": {"$gte": 3, "$lt": 8}},
    {"score": {"$lte": 1}},
    {"score": {"$eq": 7.5}},
    {"tags": ["x", "y"]},
    {"tags": ["x"]},
    {"meta": {"site": "shop"}},
    {"meta": {"n": {"$gt": 1}}},
    {"missing": None},
    {"kind": "reflection", "meta": {"site": "shop"}},
]
CONDITIONS = [
    (),
    (MatchCondition("prefix", ("reflections",)),),
    (MatchCondition("prefix", ("*", "team")),),
    (MatchCondition("suffix", ("shop",)),),
    (MatchCondition("suffix", ("*",)), MatchCondition("prefix", ("reflections", "*"))),
    (MatchCondition("prefix", ("reflections", "team", "alice", "deeper")),),
]


@pytest.fixture(scope="module")
def theirs() -> InMemoryStore:
    store = InMemoryStore()
    for namespace, items in ITEMS.items():
        for key, value in items.items():
            store.put(namespace, key, value)
    return store


@pytest.mark.parametrize("wanted", FILTERS, ids=str)
def test_a_filter_selects_what_langgraphs_store_selects(theirs, wanted):
    ours = {k for items in ITEMS.values() for k, v in items.items() if value_matches(v, wanted)}
    found = {i.key for i in theirs.search((), filter=wanted, limit=100)}
    assert ours == found


@pytest.mark.parametrize("conditions", CONDITIONS, ids=str)
@pytest.mark.parametrize("depth", [None, 1, 2])
def test_a_listing_lists_what_langgraphs_store_lists(theirs, conditions, depth):
    op = ListNamespacesOp(match_conditions=conditions, max_depth=depth, limit=100, offset=0)
    assert listed_namespaces(ITEMS, op) == theirs.batch([op])[0]


def test_an_unknown_operator_is_a_clear_error_and_a_text_is_no_number():
    with pytest.raises(ValueError, match=r"unsupported filter operator '\$in'"):
        value_matches({"score": 1}, {"score": {"$in": [1]}})
    assert not value_matches({"score": "high"}, {"score": {"$gt": 1}})
    assert not value_matches({}, {"score": {"$lte": 1}})
    assert value_matches({"score": "2"}, {"score": {"$gt": 1}})  # a number in text is a number


def test_the_sqlite_store_searches_with_them_as_langgraphs_store_does(tmp_path, theirs):
    ours = SqliteStore.open(tmp_path, HashEmbeddings(64))
    try:
        for namespace, items in ITEMS.items():
            for key, value in items.items():
                ours.put(namespace, key, value, index=False)
        for wanted in FILTERS:
            got = {i.key for i in ours.search(("reflections",), filter=wanted, limit=100)}
            want = {i.key for i in theirs.search(("reflections",), filter=wanted, limit=100)}
            assert got == want, wanted
        listing = ours.list_namespaces(prefix=("reflections",))
        assert listing == theirs.list_namespaces(prefix=("reflections",))
    finally:
        ours.close()
