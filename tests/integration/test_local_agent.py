"""The whole reflective agent on real parts: the embedded model, real embeddings, a corpus."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict

from graphs import Context, build_reflective_graph
from tests.conftest import ROOT

pytestmark = pytest.mark.integration
CORPUS = ROOT / "examples" / "corpus"
QUESTION = (
    'The creator of "Wallace and Gromit" also created what animation comedy that matched '
    "animated zoo animals with a soundtrack of people talking about their homes?"
)


class Parent(TypedDict, total=False):
    query: str
    final_output: str
    tasks: list[str]
    results: list[str]
    reflection_ids: list[str]
    checked: bool


def test_reflective_graph_as_subgraph_on_the_embedded_model():
    """End to end offline, and embedded as a node of another app's graph."""
    parent = StateGraph(Parent, context_schema=Context)
    parent.add_node("research", build_reflective_graph().compile())
    parent.add_node("check", lambda s: {"checked": bool(s.get("final_output", "").strip())})
    parent.add_edge(START, "research")
    parent.add_edge("research", "check")
    parent.add_edge("check", END)
    ctx = Context(corpus_dir=str(CORPUS), use_browser=False, max_retries=1)
    out = parent.compile().invoke({"query": QUESTION}, context=ctx)

    assert out["checked"] is True
    assert 1 <= len(out["tasks"]) <= 5 and len(out["results"]) == len(out["tasks"])
    assert all(r.strip() for r in out["results"])
    assert len(out["reflection_ids"]) >= len(out["tasks"])  # one per attempt


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
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    out = json.loads(result.stdout)
    assert out["final_output"].strip() and out["llm_calls"] >= 4
    assert "[decompose_query]" in result.stderr and "thread:" in result.stderr
    assert (tmp_path / "checkpoints.sqlite").exists()
