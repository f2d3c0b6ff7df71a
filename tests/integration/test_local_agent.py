"""The whole reflective agent on real parts: the embedded model (the fast test model,
SmolLM2-135M: the subject is the wiring, not the answer), real embeddings, a corpus."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.runnables import RunnableConfig
from langgraph.graph import END, START, StateGraph
from langgraph.store.memory import InMemoryStore
from typing_extensions import TypedDict

from core.model_catalogue import TEST_MODEL
from core.state import STATE_KEYS
from graphs import Context, build_reflective_graph
from prompts.research import SHORT_FORM
from tests.conftest import ROOT

pytestmark = pytest.mark.integration
CORPUS = ROOT / "examples" / "corpus"
QUESTION = (
    'The creator of "Wallace and Gromit" also created what animation comedy that matched '
    "animated zoo animals with a soundtrack of people talking about their homes?"
)
MODEL = f"local:{TEST_MODEL}"
ROLES = ("planner_model", "executor_model", "reflector_model", "aggregator_model")


PLACEHOLDER = "(no result)"


class NodesOfModelCalls(BaseCallbackHandler):
    """The graph node of every chat-model call (the executor agent's calls are in `model`)."""

    def __init__(self) -> None:
        self.nodes: list[str] = []

    def on_chat_model_start(self, *args: Any, metadata: dict | None = None, **kw: Any) -> None:
        self.nodes.append((metadata or {}).get("langgraph_node", ""))


class Parent(TypedDict, total=False):
    query: str
    final_output: str
    citations: list[dict]
    tasks: list[str]  # not the research graph's output: never filled in by it
    checked: bool


def test_reflective_graph_as_subgraph_on_the_embedded_model():
    """End to end offline, and embedded as a node of another app's graph (with its Store)."""
    from memory.stores.studio_index import embed

    parent = StateGraph(Parent, context_schema=Context)
    parent.add_node("research", build_reflective_graph().compile())
    parent.add_node("check", lambda s: {"checked": bool(s.get("final_output", "").strip())})
    parent.add_edge(START, "research")
    parent.add_edge("research", "check")
    parent.add_edge("check", END)
    store = InMemoryStore(index={"dims": 384, "embed": embed})
    every_role = dict.fromkeys(ROLES, MODEL)
    # planned (the subject is the plan's wiring: its tasks judged, their reflections saved)
    ctx = Context(
        **every_role, corpus_dir=str(CORPUS), use_browser=False, max_retries=1, answer_first=False
    )
    calls = NodesOfModelCalls()
    config: RunnableConfig = {"callbacks": [calls]}
    out = parent.compile(store=store).invoke({"query": QUESTION}, config, context=ctx)

    assert out["checked"] is True, out
    final = out["final_output"].strip()
    assert final != PLACEHOLDER and isinstance(out["citations"], list)
    assert "tasks" not in out  # the parent receives the answer, not the run's workings
    saved = store.search(("reflections", "default"), limit=50)
    assert saved  # one per attempt, in the parent's Store
    verdicts = [i.value["judgment"]["verdict"] for i in saved]
    assert any(v in ("pass", "retry") for v in verdicts), verdicts  # a real judgment happened
    assert "aggregate_results" in calls.nodes  # the aggregator wrote it, from the tasks' results
    # SmolLM2's executor answers from the search for the task: no agent tool steps
    assert "execute_task" in calls.nodes and "model" not in calls.nodes, calls.nodes


def test_a_short_answers_chain_on_the_embedded_model():
    """The chain's wiring on a real model: goal setting, then hops, each one call, bounded by
    max_hops and a last reading; whatever the tiny model says, the run ends with a reply and
    the chain it took."""
    every_role = dict.fromkeys(ROLES, MODEL)
    ctx = Context(**every_role, corpus_dir=str(CORPUS), use_browser=False, max_hops=2)
    calls = NodesOfModelCalls()
    config: RunnableConfig = {"callbacks": [calls]}
    graph = build_reflective_graph().compile()
    out = graph.invoke({"query": QUESTION}, config, context=ctx, output_keys=STATE_KEYS)
    if out["answer_form"] != SHORT_FORM:  # the tiny model chose another form: it was planned
        assert "decompose_query" in calls.nodes, calls.nodes
        return
    assert out["research"] == "chain" and out["chain"] and not out.get("tasks")
    assert calls.nodes[0] == "goal_setting" and set(calls.nodes[1:]) == {"hop"}, calls.nodes
    assert len(calls.nodes) <= 1 + 2 + 1  # goal, max_hops hops, one last reading
    assert out["chain"][-1]["how"] in ("answered", "compared", "last reading", "not found")
    assert out["final_output"].strip() and out["messages"][-1].content == out["final_output"]


def test_cli_run_json_on_the_embedded_model(tmp_path):
    """The README's main command, offline: one JSON object with the run's outcome."""
    env = {**os.environ, "AGENT_HOME": str(tmp_path)}
    result = subprocess.run(
        [
            sys.executable,
            "main.py",
            "run",
            QUESTION,
            "--corpus",
            str(CORPUS),
            "--no-browser",
            "--max-retries",
            "0",
            "--graph",
            "single-path",
            "--json",
            "--model",
            MODEL,
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    out = json.loads(result.stdout)
    final = out["final_output"].strip()
    assert final and final != PLACEHOLDER and out["llm_calls"] >= 4
    assert any(r != PLACEHOLDER for r in out["results"]), out["results"]
    assert final != "\n\n".join(r for r in out["results"] if r != PLACEHOLDER)  # the aggregator's
    assert "[decompose_query]" in result.stderr and "thread:" in result.stderr
    assert (tmp_path / "checkpoints.sqlite").exists()
