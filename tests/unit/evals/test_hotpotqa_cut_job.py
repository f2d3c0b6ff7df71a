"""A question cut while it answered (a killed worker) runs again on resume; what its cut attempt
saved to the carried memory is undone first, so it never reads lessons from an attempt at
itself, while what finished questions saved stays."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from core.embeddings import HashingEmbeddings
from evals.common.memory_store import project_store
from evals.common.resources import WorkerResources
from evals.hotpotqa import jobs
from evals.hotpotqa.dataset import load_hotpotqa
from evals.hotpotqa.single import HotpotSettings, run_single
from memory.agent_memory import AgentMemory
from memory.reflections.schema import Reflection, ReflectionJudgment
from tests.conftest import DATA

DEV60 = DATA / "hotpotqa" / "distractor_dev60.json"
QS = load_hotpotqa(DEV60, limit=2)
SEEN: dict[str, set[str]] = {}
LESSON = "Count each band's members."


def _lesson(rid: str, text: str) -> Reflection:
    judgment = ReflectionJudgment(needs_retry=True, confidence=0.9, verdict="retry")
    return Reflection(id=rid, task="Compare two bands", reflection=text, judgment=judgment)


def journaling_runner(*, home: str, job: str, embedding_model: str, **_: Any) -> Any:
    """Notes the lessons in memory when it starts, then saves one of its own (journaled)."""

    def answer_fn(question: str, paragraphs: Any) -> tuple[str, list[str]]:
        with project_store(home, embedding_model, job=job) as store:
            memory = AgentMemory(store)
            SEEN[job] = {r.id for r in memory.list_reflections()}
            memory.save_reflection(_lesson(f"from {job}", LESSON))
        return "no idea", []

    return answer_fn


def _payload(home: Path, index: int) -> dict[str, Any]:
    return {
        "file": str(DEV60),
        "id": QS[index].id,
        "model": "fake",
        "max_retries": 0,
        "graph": "reflective",
        "home": str(home),
        "reflections": True,
        "embedding_model": "hashing",
        "runner": f"{__name__}:journaling_runner",
    }


def test_a_cut_questions_writes_are_undone_before_it_runs_again(tmp_path: Path) -> None:
    resources = WorkerResources()
    try:
        first = jobs.answer_question(_payload(tmp_path, 0), resources)
        assert first["error"] is None and "undone_writes" not in first
        cut_job = jobs.job_name(_payload(tmp_path, 1), QS[1].id)
        with project_store(str(tmp_path), "hashing", job=cut_job) as store:  # the cut attempt
            AgentMemory(store).save_reflection(_lesson("cut", "The cut attempt's lesson."))
        again = jobs.answer_question(_payload(tmp_path, 1), resources)
    finally:
        resources.close()
    assert again["error"] is None and again["undone_writes"] == 1
    first_job = jobs.job_name(_payload(tmp_path, 0), QS[0].id)
    assert SEEN[cut_job] == {f"from {first_job}"}  # the finished question's lesson, not its own
    with project_store(str(tmp_path), "hashing") as store:
        kept = {r.id for r in AgentMemory(store).list_reflections()}
    assert kept == {f"from {first_job}", f"from {cut_job}"}


def stream_runner(*, home: str, job: str, embedding_model: str = "local", **_: Any) -> Any:
    """journaling_runner with the embeddings a stream's jobs use (no `embedding_model` set)."""
    return journaling_runner(home=home, job=job, embedding_model=embedding_model)


def test_a_resumed_stream_takes_back_every_cut_question_before_any_runs(
    tmp_path: Path, monkeypatch: Any
) -> None:
    monkeypatch.setattr("core.models.build_embeddings", lambda spec="": HashingEmbeddings())
    s = HotpotSettings(
        file=DEV60, out=tmp_path, limit=3, model="fake", memory="carry", max_tool_steps=0,
        runner=f"{__name__}:stream_runner",
    )  # fmt: skip
    qs = load_hotpotqa(DEV60, limit=3)
    run_single(s, qs[:1], out=io.StringIO())  # the first question finished
    home = s.home_for(qs[0].id)
    cut = [jobs.job_name({}, q.id) for q in qs[1:]]
    for name in cut:  # two questions were answering when the run was killed; both rewrote
        with project_store(home, "hashing", job=name) as store:  # the first one's lesson
            AgentMemory(store).save_reflection(_lesson(f"from {cut[0]}", f"{name} was here."))
    log = run_single(s, qs, out=io.StringIO())
    records = log.records_by_key()
    assert [records[q.id].get("undone_writes") for q in qs] == [None, 1, 1]
    first = jobs.job_name({}, qs[0].id)
    assert SEEN[cut[0]] == {f"from {first}"}  # neither cut attempt's lesson is read
    with project_store(home, "hashing") as store:
        kept = {r.id: r.reflection for r in AgentMemory(store).list_reflections()}
    # each rerun's own lesson, and no cut attempt's: taken back one job at a time, as each
    # started, the second undo would put the first cut attempt's text back over the rerun's
    assert kept == dict.fromkeys([f"from {first}", *(f"from {n}" for n in cut)], LESSON)
