"""A job's writes to memory are journaled in the store, and a cut job's writes are undone
before it runs again: what was new is gone, what it overwrote is back, the journal forgotten."""

from __future__ import annotations

from pathlib import Path

from evals.common.journal import JOURNAL, JournaledStore, undo_job
from memory.agent_memory import AgentMemory
from memory.reflections.schema import Reflection, ReflectionJudgment
from memory.stores.project_store import open_project_store
from memory.trajectories import Trajectory


def lesson(rid: str, text: str) -> Reflection:
    judgment = ReflectionJudgment(needs_retry=True, confidence=0.9, verdict="retry")
    return Reflection(id=rid, task="Find Ada's birth year", reflection=text, judgment=judgment)


def test_a_cut_jobs_writes_are_undone_and_others_kept(tmp_path: Path) -> None:
    with open_project_store(tmp_path, "hashing") as store:
        before = AgentMemory(store)
        before.save_reflection(lesson("earlier", "Quote the birth line."))
        before.save_reflection(lesson("other", "Read both passages."))

        cut = AgentMemory(JournaledStore(store, "q7"))
        cut.save_reflection(lesson("new", "A lesson from the cut attempt."))
        cut.save_reflection(lesson("earlier", "Overwritten by the cut attempt."))
        cut.record_trajectory(
            Trajectory(task="Find Ada", website="research", steps=[], success=True, id="t1")
        )
        assert len(store.search((JOURNAL, "q7"), limit=50)) == 3

        assert undo_job(store, "q7") == 3
        kept = {r.id: r.reflection for r in before.list_reflections()}
        assert kept == {"earlier": "Quote the birth line.", "other": "Read both passages."}
        assert before.trajectories("research", successful_only=False) == []
        assert store.search((JOURNAL, "q7"), limit=50) == []
        assert undo_job(store, "q7") == 0  # nothing left to undo
        # the restored lesson is searchable again, as it was
        found = before.relevant_reflections("Find Ada's birth year", 5)
        assert "earlier" in {r.id for r in found}


def test_another_jobs_journal_is_not_touched(tmp_path: Path) -> None:
    with open_project_store(tmp_path, "hashing") as store:
        AgentMemory(JournaledStore(store, "q1")).save_reflection(lesson("a", "Lesson of q1."))
        AgentMemory(JournaledStore(store, "q2")).save_reflection(lesson("b", "Lesson of q2."))
        assert undo_job(store, "q2") == 1
        assert [r.id for r in AgentMemory(store).list_reflections()] == ["a"]
        assert len(store.search((JOURNAL, "q1"), limit=50)) == 1
