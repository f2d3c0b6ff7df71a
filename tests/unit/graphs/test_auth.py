"""The auth handler langgraph.json names (graphs/auth.py): a request is its token's caller or
refused; threads and runs are stamped with and filtered by their owner; every store namespace
a caller names lies under their identity (as a served run's memory does, OwnedStore)."""

from __future__ import annotations

import asyncio
import json
from types import SimpleNamespace

import pytest
from langgraph_sdk import Auth

from graphs.auth import (
    authenticate,
    caller_of,
    own_namespace,
    owned,
    read_any_assistant,
    refusal,
)
from tests.conftest import ROOT

TOKENS = {"a" * 20: "alice", "b" * 20: "bob"}


def test_a_request_is_the_caller_its_token_names():
    assert caller_of({b"authorization": b"Bearer " + b"a" * 20}, TOKENS) == "alice"
    assert caller_of({b"x-api-key": b"b" * 20}, TOKENS) == "bob"
    for refused in ({}, {b"authorization": b"Bearer "}, {b"x-api-key": b"a" * 19}):
        assert caller_of(refused, TOKENS) is None
    assert caller_of({b"authorization": b"Bearer " + b"a" * 20}, {}) is None


def test_a_malformed_header_is_refused_not_a_crash():
    """Bytes no token holds (a header is any bytes) are a refusal like any other wrong token."""
    odd = (b"Bearer \xe9" * 4, b"\xff\xfe\x00", b"Basic " + b"a" * 20, b"bearer\t" + b"a" * 20)
    for value in odd:
        assert caller_of({b"authorization": value}, TOKENS) is None
        assert caller_of({b"x-api-key": value}, TOKENS) is None


def test_a_refusal_says_what_to_do():
    """With no token set, the 401 says the server serves no one yet and how its operator
    starts one that does; with tokens, how to send one. Neither names a token."""
    with pytest.raises(Auth.exceptions.HTTPException) as refused:
        asyncio.run(authenticate(headers={b"authorization": b"Bearer " + b"c" * 20}))
    assert refused.value.status_code == 401
    assert "AGENT_SERVE_TOKENS=NAME:TOKEN" in refusal({}) and "Bearer TOKEN" in refusal({})
    assert "AGENT_SERVE_TOKENS" not in refusal(TOKENS) and "Bearer TOKEN" in refusal(TOKENS)
    assert not any(token in refusal(TOKENS) for token in TOKENS)


def _ctx(identity: str, action: str) -> SimpleNamespace:
    return SimpleNamespace(user=SimpleNamespace(identity=identity), action=action)


def test_threads_and_runs_are_their_owners():
    made = {"thread_id": "t1", "metadata": None}
    assert asyncio.run(owned(ctx=_ctx("alice", "create"), value=made)) == {"owner": "alice"}
    assert made["metadata"] == {"owner": "alice"}
    kept = {"graph_id": "x"}
    search = {"metadata": kept, "limit": 10}
    asyncio.run(owned(ctx=_ctx("bob", "search"), value=search))
    assert kept == {"graph_id": "x", "owner": "bob"}  # the very dict the server filters with
    assert asyncio.run(read_any_assistant(ctx=_ctx("bob", "read"), value={})) is None


def test_every_store_namespace_is_under_its_caller():
    for value in ({"namespace": ("reflections", "default")}, {"namespace": None}):
        asyncio.run(own_namespace(ctx=_ctx("bob", "search"), value=value))
        assert value["namespace"][0] == "bob"


def test_langgraph_json_serves_the_served_graphs_behind_the_handler():
    config = json.loads((ROOT / "langgraph.json").read_text())
    assert config["auth"] == {"path": "./graphs/auth.py:auth", "disable_studio_auth": True}
    assert config["http"]["disable_webhooks"] is True  # a webhook is a POST to any URL
    assert all(":served_" in spec for spec in config["graphs"].values())
