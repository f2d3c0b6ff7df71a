"""A tiny real AWM run: the web agent on the embedded model (the fast test model, SmolLM2-135M),
real chromium, MiniWoB's reward as the judge; online reflections written after episode 1 reach
episode 2's prompt."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from core.model_catalogue import TEST_MODEL
from evals.awm.arms import parse_arms
from evals.awm.protocol import AwmSettings, run_protocol, scored_records

pytestmark = pytest.mark.integration
pytest.importorskip("llama_cpp", reason="the embedded model needs llama-cpp-python")
pytest.importorskip("miniwob", reason="MiniWoB++ pages come from pip install miniwob==1.1.0")


def test_one_family_two_episodes_online_with_reflections(tmp_path: Path) -> None:
    s = AwmSettings(
        setting="online",
        families=["enter-text"],
        arms=parse_arms("reflections"),
        out=tmp_path / "out",
        episodes=2,
        model=f"local:{TEST_MODEL}",
        max_steps=2,
    )
    progress = io.StringIO()
    log = run_protocol(s, out=progress)
    first, second = scored_records(log, s)
    for r in (first, second):
        assert r["error"] is None, r["error"]  # a crash of the model is a failure, not a skip
        assert 1 <= r["steps"] <= 2 and r["tokens"] > 0 and r["reward"] is not None
        assert r["success"] == (r["reward"] >= 1.0)
        assert r["reflection_error"] is None
    assert not first["memory_in_prompt"]["reflections"]  # nothing learned before episode 1
    from core.web_context import WebAgentContext
    from memory.agent_memory import AgentMemory
    from memory.reflections.lessons import particulars
    from memory.stores.project_store import open_project_store

    home = tmp_path / "out" / "memory" / "reflections" / "enter-text"
    with open_project_store(home, "local") as store:
        memory = AgentMemory(store, min_relevance=WebAgentContext().min_relevance)
        saved = memory.list_reflections()
        learned = [
            r
            for r in memory.relevant_reflections(second["utterance"], k=3)
            if r.task == first["utterance"]
        ]
    assert len(saved) == 2
    # episode 1's lesson reached episode 2's prompt exactly when it has a strategy for another
    # task of the family (episode 2's utterance differs): what a lesson of SmolLM2 says varies
    assert second["memory_in_prompt"]["reflections"] == bool(learned), learned
    assert not any(particulars(r.reflection) for r in learned)
    assert {r.judgment.needs_retry for r in saved} == {not first["success"], not second["success"]}
    assert "[awm-miniwob online] 2/2 score" in progress.getvalue()
    again = io.StringIO()
    run_protocol(s, out=again)  # resumes: nothing left to run
    assert "resuming: 2/2 already done" in again.getvalue() and "0 to run" in again.getvalue()
