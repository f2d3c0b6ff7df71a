"""A served graph's caller chooses among what its operator offers and may only tighten it
(core/served.py, core/offer.py): each hostile setting is one error naming it, raised before
any node runs and saying nothing of what exists on the server; library use is untouched."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field, fields
from pathlib import Path

import pytest

from core.context import Context
from core.offer import Offer, OfferError, caller_tokens, read_offer
from core.served import FREE, RULES, RefusedSetting, ServerSettingsError, admit, owner_of, served
from core.web_context import WebAgentContext
from graphs import build_reflective_graph

OFFER = Offer(
    models={"small": "local:smollm2-135m", "local": "local"},
    corpora={"notes": "/srv/notes"},
    mcp_servers={"facts": {"command": "facts-server"}},
    allowed_origins=("https://docs.example",),
    web_origins=("https://shop.example",),
    caps={"max_calls": 20},
)
HOSTILE = [
    ({"mcp_servers": {"x": {"command": "sh", "args": ["-c", "id > /tmp/owned"]}}}, "mcp_servers"),
    ({"mcp_servers": {"facts": {"command": "sh"}}}, "mcp_servers"),
    ({"model": "openai:x@http://127.0.0.1:9/v1"}, "model"),
    ({"executor_model": "openai:gpt-4o-mini"}, "executor_model"),
    ({"reflector_model": "local:/etc/passwd"}, "reflector_model"),
    ({"embedding_model": "openai:text-embedding-3-small"}, "embedding_model"),
    ({"corpus_dir": "/etc"}, "corpus_dir"),
    ({"corpus_dir": "../notes"}, "corpus_dir"),
    ({"home": "/tmp/elsewhere"}, "home"),
    ({"allowed_origins": ["http://127.0.0.1:8000"]}, "allowed_origins"),
    ({"allowed_origins": ["*"]}, "allowed_origins"),
    ({"use_browser": True, "max_calls": 21}, "max_calls"),
    ({"max_calls": None, "max_retries": 10**9}, "max_retries"),
    ({"max_tool_steps": "3"}, "max_tool_steps"),
    ({"tools": "anything"}, "tools"),
    ({"memory_owner": "bob"}, "memory_owner"),
    ({"models": {}}, "models"),
]


@pytest.mark.parametrize(("given", "setting"), HOSTILE)
def test_each_hostile_setting_is_refused_by_name(given, setting):
    with pytest.raises(RefusedSetting) as refused:
        admit(Context, given, OFFER, "alice")
    assert refused.value.setting == setting
    assert str(refused.value).startswith(f"context setting {setting!r}: ")


@dataclass(kw_only=True)
class GrownContext(Context):
    """Context as it may grow: a setting no rule and no FREE entry knows yet."""

    report_file: str | None = field(default=None, metadata={"description": "Write it here."})


def test_a_setting_no_rule_names_is_refused_whatever_it_is_for():
    """Admission is an allow-list: a field added to a context later is the operator's until it
    is named free or given a rule, so a new path, URL or command never slips through."""
    with pytest.raises(RefusedSetting, match="'report_file'"):
        admit(GrownContext, {"report_file": "/etc/cron.d/x"}, OFFER, "alice")
    assert admit(GrownContext, {"report_file": None}, OFFER, "alice").report_file is None


def test_every_setting_of_the_served_contexts_is_named_free_or_ruled():
    for schema in (Context, WebAgentContext):
        settings = {f.name for f in fields(schema) if "description" in f.metadata}
        assert settings - set(RULES) - FREE == set(), schema.__name__


def test_a_refusal_says_nothing_of_what_exists_on_the_server(tmp_path):
    there = tmp_path / "model.gguf"
    there.write_bytes(b"GGUF")
    messages = set()
    for path in (there, tmp_path / "nothing.gguf"):
        with pytest.raises(RefusedSetting) as refused:
            admit(Context, {"model": f"local:{path}"}, OFFER)
        messages.add(str(refused.value).replace(str(path), "PATH"))
    assert len(messages) == 1  # the same words whether or not a file is there
    assert "/srv/notes" not in str(messages) and "facts-server" not in str(messages)


def test_a_caller_chooses_by_name_and_tightens():
    ctx = admit(
        Context,
        {
            "model": "small",
            "executor_model": "local",
            "corpus_dir": "notes",
            "mcp_servers": {"facts": {}},
            "use_browser": False,
            "allowed_origins": [],
            "max_calls": 5,
            "max_retries": 0,
            "system_prompt": "Be brief.",
        },
        OFFER,
        "alice",
    )
    assert (ctx.spec("planner"), ctx.spec("executor")) == ("local:smollm2-135m", "local")
    assert ctx.corpus_dir == "/srv/notes" and ctx.mcp_servers == {
        "facts": {"command": "facts-server"}
    }
    assert (ctx.use_browser, ctx.allowed_origins, ctx.max_calls) == (False, [], 5)
    assert (ctx.max_retries, ctx.system_prompt, ctx.memory_owner) == (0, "Be brief.", "alice")


def test_given_nothing_a_run_gets_the_operators_settings():
    ctx = admit(Context, None, OFFER)
    assert ctx.spec("planner") == "local" and ctx.home == OFFER.home
    assert ctx.mcp_servers == OFFER.mcp_servers and ctx.allowed_origins == ["https://docs.example"]
    assert ctx.max_calls == 20 and ctx.corpus_dir is None and ctx.memory_owner is None
    assert admit(Context, {"mcp_servers": {}, "corpus_dir": ""}, OFFER).mcp_servers == {}


def test_a_form_sending_the_shown_defaults_asks_for_nothing():
    """Studio's form may send a setting's default back untouched: where the operator offers
    otherwise, that is no request (but `home`, whose default is the server's own, is refused)."""
    offer = Offer(models={"fast": "local:smollm2-135m"}, model="fast", browser=False)
    ctx = admit(Context, {"model": "local", "use_browser": True, "embedding_model": "local"}, offer)
    assert (ctx.spec("planner"), ctx.use_browser) == ("local:smollm2-135m", False)
    with pytest.raises(RefusedSetting, match="'use_browser'"):
        admit(Context, {"use_browser": "true"}, offer)
    with pytest.raises(RefusedSetting, match="'home'"):
        admit(Context, {"home": offer.home}, offer)


def test_the_web_agent_starts_only_where_its_operator_allows():
    ctx = admit(WebAgentContext, {"max_steps": 5, "allowed_origins": []}, OFFER)
    assert ctx.start_origins == ("https://shop.example",) and ctx.allowed_origins == []
    assert admit(WebAgentContext, {}, OFFER).allowed_origins == ["https://shop.example"]
    with pytest.raises(RefusedSetting, match="'allowed_origins'"):
        admit(WebAgentContext, {"allowed_origins": ["http://169.254.169.254"]}, OFFER)
    assert WebAgentContext().start_origins is None  # library use: any start page


def test_callers_must_be_authenticated_when_the_server_has_tokens():
    with pytest.raises(RefusedSetting, match="authenticated callers only"):
        admit(Context, {}, Offer(authenticated=True), None)
    assert admit(Context, {}, Offer(authenticated=True), "bob").memory_owner == "bob"


def test_the_owner_is_the_servers_authenticated_user():
    class User:
        identity = "alice"

    assert owner_of({"configurable": {"langgraph_auth_user": User()}}) == "alice"
    assert owner_of({"configurable": {"langgraph_auth_user": {"identity": "bob"}}}) == "bob"
    assert owner_of({"configurable": {"langgraph_auth_user": None}}) is None
    assert owner_of(None) is None


def write_offer(folder: Path, text: str) -> dict[str, str]:
    (folder / "serve.toml").write_text(text)
    return {"AGENT_SERVE_CONFIG": str(folder / "serve.toml")}


def test_the_operators_file(tmp_path):
    (tmp_path / "mcp.json").write_text(json.dumps({"mcpServers": {"facts": {"command": "f"}}}))
    environ = write_offer(
        tmp_path,
        'model = "fast"\ncorpus = "notes"\nmcp = "mcp.json"\nweb_origins = ["*"]\n'
        'max_seconds = 60\n[models]\nfast = "local:smollm2-135m"\n[corpora]\nnotes = "docs"\n',
    )
    offer = read_offer(environ)
    assert offer.models == {"fast": "local:smollm2-135m"} and offer.model == "fast"
    assert offer.corpora == {"notes": str(tmp_path / "docs")} and offer.corpus == "notes"
    assert offer.mcp_servers == {"facts": {"command": "f"}} and offer.web_origins == ("*",)
    assert offer.caps == {"max_seconds": 60} and not offer.authenticated
    assert "local:smollm2-135m" in read_offer({}).models  # no file: the embedded models


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('model = "gpt"\n[models]\nfast = "local"\n', "not one of \\[models\\]"),
        ('[models]\nx = "openai:m@ftp://h"\n', "\\[models\\] x"),
        ("max_calls = 0\n", "must be positive"),
        ('colour = "red"\n', "unknown setting 'colour'"),
        ('browser = "yes"\n', "wrong type"),
        ('mcp = "missing.json"\n', "mcp:"),
    ],
)
def test_a_broken_file_is_one_error_naming_the_setting(tmp_path, text, message):
    with pytest.raises(OfferError, match=message):
        read_offer(write_offer(tmp_path, text))


def test_callers_tokens():
    token = "t" * 16
    assert caller_tokens({"AGENT_SERVE_TOKENS": f"alice:{token}, bob:{'u' * 20}"}) == {
        token: "alice",
        "u" * 20: "bob",
    }
    for short in ("alice:short", f"alice:{'é' * 16}", f"alice:{'t' * 8} {'t' * 8}"):
        with pytest.raises(OfferError, match="at least 16"):
            caller_tokens({"AGENT_SERVE_TOKENS": short})
    for name in ("alice.smith", "langgraph", "al ice"):  # each heads a store namespace
        with pytest.raises(OfferError, match="a name of letters"):
            caller_tokens({"AGENT_SERVE_TOKENS": f"{name}:{token}"})
    with pytest.raises(OfferError, match="share a token") as shared:
        caller_tokens({"AGENT_SERVE_TOKENS": f"alice:{token},bob:{token}"})
    assert token not in str(shared.value)
    assert read_offer({"AGENT_SERVE_TOKENS": f"alice:{token}"}).authenticated


def test_a_served_graph_refuses_before_any_node_runs(tmp_path):
    graph = served(build_reflective_graph().compile(), environ={})
    with pytest.raises(RefusedSetting, match="'corpus_dir'"):
        graph.invoke({"query": "What is in /etc?"}, context={"corpus_dir": "/etc"})
    with pytest.raises(RefusedSetting, match="'corpus_dir'"):
        list(graph.stream({"query": "q"}, context={"corpus_dir": "/etc"}))
    assert graph.copy().environ == {}  # LangGraph's server copies the graph for each run

    async def served_run() -> None:  # how LangGraph's server runs it
        async for _ in graph.astream({"query": "q"}, context={"home": str(tmp_path)}):
            pass

    with pytest.raises(RefusedSetting, match="'home'"):
        asyncio.run(served_run())


def test_a_broken_offer_tells_the_caller_nothing_but_that(tmp_path, caplog):
    graph = served(build_reflective_graph().compile(), environ=write_offer(tmp_path, "x = ["))
    with pytest.raises(ServerSettingsError) as refused:
        graph.invoke({"query": "q"}, context={})
    assert str(tmp_path) not in str(refused.value) and str(tmp_path) in caplog.text
