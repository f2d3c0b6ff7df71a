"""Two Ray workers on a local Ray instance give the same per-episode results as one process."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest
import ray  # noqa: F401  - in the dev extras CI installs: a missing Ray fails, never skips

from evals.common.workers import Job, run_jobs

pytestmark = pytest.mark.integration

TASKS = ["click-button", "enter-text", "login-user"]
OUTCOME = ("key", "family", "seed", "success", "raw_reward", "steps", "actions", "utterance")


def _jobs() -> list[Job]:
    return [
        Job(f"{t}#{s}", "evals.miniwob.jobs:oracle_episode", {"task": t, "seed": s})
        for t in TASKS
        for s in (5, 6)
    ]


def _element(action: str) -> str:
    """An action with its element id masked: ids are Chromium's backend DOM node ids, numbered
    by the renderer process, so they depend on what that worker's browser loaded before."""
    return re.sub(r"^(click|hover|type) \[\d+\]", r"\1 [#]", action)


def _outcomes(records: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    masked = [{**r, "actions": [_element(a) for a in r["actions"]]} for r in records]
    return sorted(tuple(str(r[k]) for k in OUTCOME) for r in masked)


def test_two_ray_workers_equal_a_sequential_run() -> None:
    sequential: list[dict[str, Any]] = []
    run_jobs(_jobs(), sequential.append)
    started = time.monotonic()
    parallel: list[dict[str, Any]] = []
    run_jobs(_jobs(), parallel.append, workers=2)
    print(f"2 Ray workers: {len(parallel)} episodes in {time.monotonic() - started:.1f}s")
    assert all(r["success"] for r in sequential), [r["key"] for r in sequential if not r["success"]]
    assert _outcomes(parallel) == _outcomes(sequential)
    assert len({r["worker_pid"] for r in parallel}) == 2  # both workers ran episodes
    assert len({r["worker_pid"] for r in sequential}) == 1
