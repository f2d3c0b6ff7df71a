"""Exactly-once memory under SIGKILL: kill the reflective graph (scripted model, SqliteSaver,
the project's store, synchronous durability as the CLI runs it) at node boundaries and right
after a reflection is saved, resume each time, and count duplicate reflections and re-run
finished work. "Finished" means checkpointed: a task attempt whose completion the checkpoint
records (a finished task's attempts, or the attempts its subgraph's checkpoint counts)."""

from __future__ import annotations

import json
import multiprocessing
import signal
from collections import Counter
from pathlib import Path

import pytest

from agents.research.records import memory_id
from agents.research.reflect_on_answer import ANSWER_INDEX
from tests.integration.fault_child import graph_for, run_child

pytestmark = pytest.mark.integration
MAX_PROCESSES = 60
# children fork from a clean, single-threaded server that has the graph imported already
PRELOAD = ["tests.integration.fault_child", "graphs.research", "tests.unit.research_script"]


def durable(home: Path, thread: str) -> tuple[dict, set[tuple[int, int]]]:
    """The checkpointed parent state, and every (task, attempt) whose execution is durable:
    all attempts of a finished task, and attempts 1..A of a running task whose subgraph
    checkpoint says A attempts were made."""
    graph = graph_for(home)
    snapshot = graph.get_state({"configurable": {"thread_id": thread}}, subgraphs=True)
    values = snapshot.values
    done: set[tuple[int, int]] = set()
    for i, report in enumerate(values.get("task_reports") or []):
        if report:
            done |= {(i, a) for a in range(1, report["attempts"] + 1)}
    for task in snapshot.tasks:
        sub = task.state.values if task.state is not None else {}
        if sub.get("attempt") and "task_index" in sub:
            done |= {(sub["task_index"], a) for a in range(1, sub["attempt"] + 1)}
    return values, done


def reruns(entries: list[dict], before: dict, done: set[tuple[int, int]]) -> list[dict]:
    """Node starts of one process that redo what was already durable before it started."""
    planned = bool(before.get("tasks"))
    return [
        e
        for e in entries
        if (e["node"] == "execute_task" and (e["task_index"], e["attempt"]) in done)
        or (planned and e["node"] in ("goal_setting", "decompose_query"))
        or (before.get("final_output") and e["node"] == "aggregate_results")
        or (before.get("answer_check") and e["node"] == "check_answer")
    ]


def drive(ctx, home: Path, thread: str, *, ends: list[int] | None, saves: int | None) -> dict:
    """Run one thread to completion, each process killed per the schedule; the tallies."""
    log = home / f"{thread}.log"
    kills, bad = 0, []
    for n in range(MAX_PROCESSES):
        before, done = durable(home, thread)
        kill_ends = ends[n % len(ends)] if ends else None
        proc = ctx.Process(target=run_child, args=(str(home), thread, kill_ends, saves, str(log)))
        proc.start()
        proc.join(300)
        assert proc.exitcode is not None, "a child hung"
        entries = [json.loads(x) for x in log.read_text().splitlines()] if log.exists() else []
        bad += reruns([e for e in entries if e["pid"] == proc.pid], before, done)
        if proc.exitcode == 0:
            return {"kills": kills, "reruns": bad, "processes": n + 1}
        assert proc.exitcode == -signal.SIGKILL, f"child failed with exit code {proc.exitcode}"
        kills += 1
    raise AssertionError(f"{thread} did not finish in {MAX_PROCESSES} processes")


def duplicates(home: Path) -> tuple[int, int, set[str]]:
    """(reflections stored, how many (run, task, attempt) have more than one, trajectory ids)."""
    from core.embeddings import HashingEmbeddings
    from memory.stores.sqlite_store import SqliteStore

    store = SqliteStore.open(home, HashingEmbeddings(256))
    items = store.search(("reflections", "default"), limit=10_000)
    trajectories = {t.key for t in store.search(("trajectories", "research"), limit=10_000)}
    store.close()
    keys = Counter((i.value["run_id"], i.value["task_index"], i.value["attempt"]) for i in items)
    return len(items), sum(n - 1 for n in keys.values() if n > 1), trajectories


def test_sigkill_at_node_boundaries_and_after_saves_loses_and_repeats_nothing(tmp_path, tally):
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(PRELOAD)
    runs = {
        "boundaries-1": drive(ctx, tmp_path, "boundaries-1", ends=[1], saves=None),
        "boundaries-2": drive(ctx, tmp_path, "boundaries-2", ends=[2, 3], saves=None),
        "after-save": drive(ctx, tmp_path, "after-save", ends=None, saves=1),
    }
    stored, dups, trajectory_ids = duplicates(tmp_path)
    graph = graph_for(tmp_path)
    final_ids, run_ids = [], set()
    for thread in runs:
        state = graph.get_state({"configurable": {"thread_id": thread}}).values
        assert state["final_output"] and all(r for r in state["results"])
        final_ids += state["reflection_ids"]
        run_ids.add(memory_id(thread, state["run_id"], ANSWER_INDEX, 1))
    kills = sum(r["kills"] for r in runs.values())
    reran = [e for r in runs.values() for e in r["reruns"]]
    # for the suite's summary (tests/integration/conftest.py), recorded before any assertion
    tally["injection_runs"] += 1
    tally["injection_kills"] += kills
    tally["injection_save_kills"] += runs["after-save"]["kills"]
    tally["injection_boundary_kills"] += kills - runs["after-save"]["kills"]
    tally["injection_duplicates"] += dups
    tally["injection_reruns"] += len(reran)
    assert kills >= 20 and runs["after-save"]["kills"] >= 3
    assert dups == 0 and stored == len(final_ids) == len(set(final_ids)) == 3 * 4
    # one trajectory per attempt, under its reflection's id, and one per run (its plan)
    assert trajectory_ids == set(final_ids) | run_ids
    assert reran == [], reran
