"""A tiny real HotpotQA run in Reflexion's protocol: the single-path graph on the embedded model
answers one dev question; a wrong answer gets a lesson from the real reflector, saved in the
arm's reflection memory, and a second trial."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from evals.hotpotqa_reflexion import ReflexionSettings, run_reflexion

pytestmark = pytest.mark.integration
pytest.importorskip("llama_cpp", reason="the embedded model needs llama-cpp-python")
DEV60 = (
    Path(__file__).resolve().parents[3] / "shared" / "data" / "hotpotqa" / "distractor_dev60.json"
)


def test_one_question_two_trials_with_reflections(tmp_path: Path) -> None:
    s = ReflexionSettings(file=DEV60, out=tmp_path / "out", arms=["reflections"], trials=2,
                          limit=1, graph="single-path", max_retries=0)  # fmt: skip
    progress = io.StringIO()
    log = run_reflexion(s, out=progress)
    records = sorted(log.records(), key=lambda r: r["trial"])
    first = records[0]
    assert first["error"] is None, first["error"]  # a crash is a failure, never a skip
    assert first["calls"] >= 2 and first["seconds"] > 0  # graph calls + the short answer
    assert first["answer"].strip() and first["answer"] != "(no result)"
    from memory.reflections import open_reflection_manager

    lessons = [
        r for r in open_reflection_manager(tmp_path / "out" / "memory" / "reflections",
                                           "local").list_reflections()
        if r.judgment.confidence == 1.0  # the checker's verdicts (not the graph's own)
    ]  # fmt: skip
    if first["em"]:
        assert len(records) == 1 and not lessons  # solved: no second trial, nothing to learn
    else:
        assert first["reflection_error"] is None
        assert len(lessons) == 1 and lessons[0].judgment.needs_retry
        assert len(records) == 2 and records[1]["error"] is None
    assert "[hotpotqa-reflexion trial 1/2] 1/1 score" in progress.getvalue()
