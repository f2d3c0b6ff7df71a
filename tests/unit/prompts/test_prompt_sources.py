"""Every word a model reads in a run of langgraph.json's graphs is defined in prompts/: the walk
from langgraph.json to the whole text of a node's messages, and of the schema sent with them,
ends in the graph's prompt module, prompts/memory.py (how memory reads) and
prompts/untrusted.py (the data rule), found by where the text is defined, not by what imports
what.

The graphs run on scripted models (tests/unit/research_script.py, tests/unit/web_fakes.py) along
their paths: a chain of hops to a last reading, a short answer checked and its disagreement
learned from, a plan whose tasks search, fail, retry and are judged, memory recalled, a web task
planned, acted and judged. A callback records every call's messages under the node that made it;
each fragment of fixed text a product module defines (a string constant, cut at its
`{placeholders}`, docstrings aside) is looked for in them and traced to its module. Data (the
request, passages, pages, the scripted replies) comes from the tests and traces to nothing."""

from __future__ import annotations

import ast
import asyncio
import json
import re
import uuid
from collections.abc import Iterable
from functools import cache
from typing import Any

import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langgraph.checkpoint.memory import InMemorySaver

from graphs import build_reflective_graph
from graphs.web import build_web_graph
from tests.conftest import ROOT
from tests.unit import research_script as rs
from tests.unit.agents.research.test_hop import FIRST, ChainScript
from tests.unit.web_fakes import wired

__all__ = ["wired"]

PRODUCT = ("agents", "browser", "cli", "core", "graphs", "memory", "prompts")
PROMPTS = {
    "research": {"prompts/research.py", "prompts/memory.py", "prompts/untrusted.py"},
    "web": {"prompts/web.py", "prompts/memory.py", "prompts/untrusted.py"},
}
_PLACEHOLDER = re.compile(r"\{[^{}]*\}")


def _fragments(source: str) -> Iterable[str]:
    """The fixed text of `source`'s string constants (docstrings aside), cut at placeholders;
    a fragment is text when it is long enough to mean something or holds a tag (a short
    fragment such as "click [" is the action language a history is written in, not text)."""
    tree = ast.parse(source)
    docs = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            for piece in _PLACEHOLDER.split(node.value):
                piece = piece.strip()
                if re.fullmatch(r"\w*", piece) or not re.search(r"[A-Za-z]", piece):
                    continue  # an identifier (a key, a tool's name) or punctuation
                if len(piece) >= 12 or "<" in piece:
                    yield piece


@cache
def defined_text() -> dict[str, frozenset[str]]:
    """{fragment: the product files that define it}."""
    found: dict[str, set[str]] = {}
    for package in PRODUCT:
        for path in sorted((ROOT / package).rglob("*.py")):
            where = path.relative_to(ROOT).as_posix()
            for piece in _fragments(path.read_text(encoding="utf-8")):
                found.setdefault(piece, set()).add(where)
    return {piece: frozenset(files) for piece, files in found.items()}


def text_sources(text: str, prompts: set[str]) -> set[str]:
    """The files that define the fixed text in `text`. A fragment several files define (a tag
    two prompt modules share) is the graph's `prompts` files' where they are among them; one
    inside a longer fragment of a prompts/ file (a tag, a shared phrase) is that file's."""
    matched = {p: files for p, files in defined_text().items() if p in text}
    in_prompts = [p for p, fs in matched.items() if any(f.startswith("prompts/") for f in fs)]
    out: set[str] = set()
    for piece, files in matched.items():
        if any(piece in longer and piece != longer for longer in in_prompts):
            continue
        out |= (files & prompts) or files
    return out


def _schema_text(schema: Any) -> list[str]:
    """The descriptions a JSON schema gives the model."""
    if isinstance(schema, dict):
        own = [v for k, v in schema.items() if k == "description" and isinstance(v, str)]
        return own + [t for k, v in schema.items() if k != "description" for t in _schema_text(v)]
    if isinstance(schema, list):
        return [t for v in schema for t in _schema_text(v)]
    return []


class Calls(BaseCallbackHandler):
    """Every chat call's messages, and the schema bound to it, under the node that made it."""

    def __init__(self) -> None:
        self.by_node: dict[str, list[str]] = {}

    def on_chat_model_start(self, serialized, messages, *, metadata=None, **kwargs) -> None:
        node = (metadata or {}).get("langgraph_node", "?")
        params = kwargs.get("invocation_params") or {}
        schema = json.dumps(_schema_text(params.get("json_schema")))
        text = "\n".join(m.text for batch in messages for m in batch)
        self.by_node.setdefault(node, []).append(f"{text}\n{schema}")


def _research_runs() -> dict[str, list[str]]:
    calls = Calls()
    settings = [
        # a chain of two hops, then the last reading after max_hops
        (ChainScript("Ada Lovelace wrote notes. Taylor printed them.", "Not sure."), FIRST),
        # a short answer checked against a direct reading that differs, and learned from
        (rs.ShortScript("1815", "1816"), {"max_retries": 1}),
        # a plan: tasks that search, the first failing once and retried, judged, aggregated
        (rs.Script({0: [True, False]}), {"max_retries": 1}),
        # no tool steps: each task answered from its search's evidence, or skipped when that
        # found only what the run read
        (rs.Script(), {"max_retries": 0, "max_tool_steps": 0}),
    ]
    wire = rs.Wiring()  # one store: the later runs recall the earlier runs' memory
    for script, ctx in settings:
        wire(script)
        graph = build_reflective_graph().compile(checkpointer=InMemorySaver(), store=wire.store)
        config = {"callbacks": [calls], "configurable": {"thread_id": uuid.uuid4().hex}}
        graph.invoke({"query": rs.QUESTION}, config, context=wire.context(**ctx, max_hops=2))
    return calls.by_node


def _web_runs(wired, home) -> dict[str, list[str]]:
    """A web task run twice on a scripted shop: with a lesson and a workflow in memory, then
    with the first run's steps as memory."""
    from agents.web import session as web_session
    from core.web_context import WebAgentContext
    from memory.reflections.schema import Reflection, ReflectionJudgment
    from memory.workflows.files import WorkflowFiles
    from memory.workflows.types import Workflow
    from tests.unit.web_fakes import ShopEnv, buyer

    wired.memory.save_reflection(
        Reflection(
            task="Buy the item",
            reflection="Click Buy once, then stop.",
            judgment=ReflectionJudgment(needs_retry=False, confidence=0.9),
        )
    )
    shown = Workflow(name="buy_item", description="Buy an item.", steps=["click [7]", "stop"])
    WorkflowFiles(home).save("shop", [shown])
    wired(buyer())
    calls = Calls()
    for use_workflows in (True, False):
        context = WebAgentContext(
            online_induction="off", models=wired.models, use_workflows=use_workflows
        )
        web_session.attach(context, ShopEnv(), None)
        state = {"task": "Buy the item", "run_id": uuid.uuid4().hex, "website": "shop"}
        config = {"callbacks": [calls], "recursion_limit": 200}
        graph = build_web_graph().compile(store=wired.store)
        asyncio.run(graph.ainvoke(state, context=context, config=config))
    return calls.by_node


@pytest.fixture(scope="module")
def research_calls() -> dict[str, list[str]]:
    return _research_runs()


RESEARCH_NODES = {
    "goal_setting",
    "hop",
    "decompose_query",
    "model",  # the executor agent's call, inside execute_task
    "execute_task",
    "reflect_on_task",
    "aggregate_results",
    "check_answer",
    "reflect_on_answer",
}


def test_the_runs_reach_every_research_node_that_calls_a_model(research_calls):
    assert set(research_calls) == RESEARCH_NODES


@pytest.mark.parametrize("node", sorted(RESEARCH_NODES))
def test_a_research_nodes_text_is_all_defined_in_prompts(research_calls, node):
    sources = set().union(*(text_sources(t, PROMPTS["research"]) for t in research_calls[node]))
    assert "prompts/research.py" in sources
    assert sources <= PROMPTS["research"]


def test_the_web_graphs_text_is_all_defined_in_prompts(wired, isolated_home):
    calls = _web_runs(wired, isolated_home)
    assert {"plan", "decide", "finish"} <= set(calls)
    for node, texts in calls.items():
        sources = set().union(*(text_sources(t, PROMPTS["web"]) for t in texts))
        assert "prompts/web.py" in sources and sources <= PROMPTS["web"], node


def test_text_defined_outside_prompts_is_found_where_it_is_defined():
    """The check itself: a node module's own sentence, or a tag only it writes, is traced to it;
    a tag a prompt module also writes is the prompt module's; data is nobody's."""
    ours = PROMPTS["research"]
    assert text_sources("x No passage read states the answer. y", ours) == {
        "agents/research/hop.py"
    }
    assert text_sources("<request>\nWho?\n</request>", ours) == {"prompts/research.py"}
    assert text_sources("<task>\nBuy it\n</task>", ours) == {"prompts/research.py"}
    assert text_sources("<task>\nBuy it\n</task>", PROMPTS["web"]) == {"prompts/web.py"}
    assert text_sources("Ada Lovelace was born in 1815.", ours) == set()
    constants = 'X = "Never guess: <hint>{n}</hint> here."\n"""A docstring, not text."""\n'
    assert list(_fragments(constants)) == ["Never guess: <hint>", "</hint> here."]
