"""A tiny real HotpotQA run in Reflexion's protocol on the fast test model (SmolLM2-135M): one
dev question, answered from its paragraphs (`direct-candidates`, a grammar choice among their
candidate spans: the product's graphs take several CPU-minutes per question here, so their wiring
is covered by the scripted-model unit tests); a wrong answer gets a lesson from the real
reflector, saved in the arm's store, and a second trial that reads it."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from core.model_catalogue import TEST_MODEL
from evals.hotpotqa.candidates import candidate_answers
from evals.hotpotqa.dataset import load_hotpotqa
from evals.hotpotqa.metrics import exact_match_score, f1_score
from evals.hotpotqa.reflexion import ReflexionSettings, question_home, run_reflexion
from evals.hotpotqa.short_answer import SHORT_ANSWER_ATTEMPTS

pytestmark = pytest.mark.integration
pytest.importorskip("llama_cpp", reason="the embedded model needs llama-cpp-python")
DEV60 = Path(__file__).resolve().parents[1] / "data" / "hotpotqa" / "distractor_dev60.json"


def _lessons(home: Path) -> list:
    from memory.agent_memory import AgentMemory
    from memory.stores.project_store import open_project_store

    with open_project_store(home, "local") as store:
        return AgentMemory(store).list_reflections()


def test_one_question_two_trials_with_reflections(tmp_path: Path) -> None:
    question = load_hotpotqa(DEV60, limit=1)[0]
    gold = question.answer
    s = ReflexionSettings(
        file=DEV60,
        out=tmp_path / "out",
        arms=["reflections"],
        trials=2,
        limit=1,
        model=f"local:{TEST_MODEL}",
        graph="direct-candidates",
    )
    progress = io.StringIO()
    records = sorted(run_reflexion(s, out=progress).records(), key=lambda r: r["trial"])
    for r in records:
        assert r["error"] is None, r["error"]  # a crash is a failure, never a skip
        # one call, or two when the first did not parse as a candidate (core.structured);
        # no candidate twice is recorded as an empty, wrong answer, not a crash
        assert 1 <= r["calls"] <= SHORT_ANSWER_ATTEMPTS
        assert r["answer"] in ("", *candidate_answers(question.question, question.paragraphs))
        assert r["em"] == exact_match_score(r["answer"], gold)
        assert r["f1"] == f1_score(r["answer"], gold)[0]
    lessons = _lessons(question_home(tmp_path / "out", "reflections", question.id))
    if records[0]["em"]:
        assert len(records) == 1 and not lessons  # solved at once: nothing to learn
    else:  # the retry wrote the lesson of trial 1 before answering
        assert len(records) == 2 and "reflection_error" not in records[1], records[1]
        assert len(lessons) == 1 and lessons[0].judgment.needs_retry
    assert "[hotpotqa-reflexion trial 1/2] 1/1 score" in progress.getvalue()
