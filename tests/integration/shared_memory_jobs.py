"""Worker jobs for tests/integration/test_shared_memory_workers.py (run on Ray workers: each
opens its own mirror of the shared PostgreSQL memory, as a worker on its own machine would)."""

from __future__ import annotations

import os
import time
from typing import Any

from evals.common.memory_store import project_store
from evals.common.resources import WorkerResources
from memory.agent_memory import AgentMemory
from memory.reflections.schema import Reflection, ReflectionJudgment
from memory.stores.shared_store import SharedMemory

EMBEDDINGS = "hashing:256"


def save_lesson(payload: dict[str, Any], resources: WorkerResources) -> dict[str, Any]:
    """Save one lesson in the shared memory, from this worker."""
    shared = SharedMemory(payload["url"], tuple(payload["scope"]))
    lesson = Reflection(
        id=payload["id"],
        task=payload["task"],
        reflection=payload["lesson"],
        judgment=ReflectionJudgment(needs_retry=True, confidence=0.9, verdict="retry"),
        outcome="failure",
    )
    with project_store(payload["home"], EMBEDDINGS, resources.models, shared=shared) as store:
        AgentMemory(store).save_reflection(lesson)
    return {"worker_pid": os.getpid(), "saved": payload["id"]}


def find_lesson(payload: dict[str, Any], resources: WorkerResources) -> dict[str, Any]:
    """Search the shared memory from this worker until a lesson for the task turns up (or
    `wait_s` passes): what the research graph's prompts would get."""
    shared = SharedMemory(payload["url"], tuple(payload["scope"]))
    deadline, found = time.monotonic() + float(payload["wait_s"]), []
    with project_store(payload["home"], EMBEDDINGS, resources.models, shared=shared) as store:
        memory = AgentMemory(store, min_relevance=0.2)
        while not found and time.monotonic() < deadline:
            found = [r.id for r in memory.relevant_reflections(payload["task"], k=3)]
            time.sleep(0.0 if found else 0.5)
    return {"worker_pid": os.getpid(), "found": found}
