"""A job cut by SIGKILL while it wrote to memory shared in a real PostgreSQL server: before it
runs again, what it saved (a lesson, a trajectory) is undone in the database and in the mirror,
and what a finished job saved stays."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from evals.common.memory_store import project_store, undo_cut_job
from memory.agent_memory import AgentMemory
from memory.stores.postgres import postgres_store
from memory.stores.shared_store import SharedMemory

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]
EMBEDDINGS = "hashing:256"

# a worker that saves a lesson and a trajectory under its job, says so, then waits to be killed
CUT_WORKER = textwrap.dedent(
    """
    import sys, time
    from evals.common.memory_store import project_store
    from memory.agent_memory import AgentMemory
    from memory.reflections.schema import Reflection, ReflectionJudgment
    from memory.stores.shared_store import SharedMemory
    from memory.trajectories import Trajectory

    url, home, job = sys.argv[1:4]
    shared = SharedMemory(url, ("test", "cut"))
    with project_store(home, "hashing:256", shared=shared, job=job) as store:
        memory = AgentMemory(store)
        judgment = ReflectionJudgment(needs_retry=True, confidence=0.9, verdict="retry")
        memory.save_reflection(Reflection(
            id="cut", task="Which band has more members?",
            reflection="A lesson from the cut attempt.", judgment=judgment))
        memory.record_trajectory(Trajectory(
            task="Which band has more members?", website="research", steps=[], success=True,
            id="cut-run"))
        print("saved", flush=True)
        time.sleep(600)
    """
)


def test_a_killed_jobs_writes_are_undone_before_it_runs_again(pg_url, tmp_path):
    from memory.reflections.schema import Reflection, ReflectionJudgment

    shared = SharedMemory(pg_url, ("test", "cut"))
    judgment = ReflectionJudgment(needs_retry=False, confidence=0.9, verdict="pass")
    with project_store(str(tmp_path / "a"), EMBEDDINGS, shared=shared, job="q1") as store:
        AgentMemory(store).save_reflection(
            Reflection(
                id="done",
                task="Count the band's members",
                reflection="Count them.",
                judgment=judgment,
            )
        )
    worker = subprocess.Popen(
        [sys.executable, "-c", CUT_WORKER, pg_url, str(tmp_path / "b"), "q2"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        assert worker.stdout is not None and worker.stdout.readline().strip() == "saved"
    finally:
        worker.send_signal(signal.SIGKILL)
        worker.wait(timeout=30)
    assert worker.returncode == -signal.SIGKILL

    reflections = ("test", "cut", "reflections", "default")
    with postgres_store(pg_url) as db:
        assert db.get(reflections, "cut") is not None  # the kill left it there
    assert "cut" in _found(tmp_path / "b", shared)  # and in the killed worker's mirror
    assert undo_cut_job(str(tmp_path / "b"), EMBEDDINGS, None, shared, "q2") == 2
    with postgres_store(pg_url) as db:
        assert db.get(reflections, "cut") is None and db.get(reflections, "done") is not None
        assert db.get(("test", "cut", "trajectories", "research"), "cut-run") is None
    assert _found(tmp_path / "b", shared) == {"done"}
    with project_store(str(tmp_path / "b"), EMBEDDINGS, shared=shared) as store:
        assert AgentMemory(store).trajectories("research", successful_only=False) == []
    assert undo_cut_job(str(tmp_path / "b"), EMBEDDINGS, None, shared, "q2") == 0


def _found(home: Path, shared: SharedMemory) -> set[str]:
    """The lessons a search from `home`'s mirror finds (no relevance floor)."""
    with project_store(str(home), EMBEDDINGS, shared=shared) as store:
        memory = AgentMemory(store, min_relevance=0.0)
        return {r.id for r in memory.relevant_reflections("Which band has more members?", 5)}
