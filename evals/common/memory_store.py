"""The store a worker's run is compiled with: the project's store under its home, the memory
shared in PostgreSQL (mirrored under the home), or none (memory off)."""

from __future__ import annotations

import os
import socket
from collections.abc import Collection, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeGuard, cast

from langgraph.store.base import BaseStore, Op, Result, SearchItem, SearchOp

from core.models import Models
from memory.stores.shared_store import SharedMemory


@contextmanager
def project_store(
    home: str,
    embedding_model: str,
    models: Models | None = None,
    *,
    on: bool = True,
    shared: SharedMemory | None = None,
    job: str | None = None,
) -> Iterator[Any]:
    """The project's persistent store under `home` (reflections, workflows, trajectories), or
    None (memory off) when `on` is false; with `shared`, the memory lives in its PostgreSQL
    database under its scope and this worker mirrors it under HOME/mirrors/HOST-PID (each
    worker its own, as on its own machine); with `job`, every write is journaled under that
    job's name (evals.common.journal), so a cut job's writes can be undone; closed on exit."""
    if not on:
        yield None
        return
    from evals.common.journal import JournaledStore
    from memory.stores.project_store import open_memory_store

    if shared is None:
        where: dict[str, Any] = {"home": home}
    else:
        mirror = Path(home) / "mirrors" / f"{socket.gethostname()}-{os.getpid()}"
        where = {"home": mirror, "memory_url": shared.url, "scope": shared.scope}
    with open_memory_store(embedding_model=embedding_model, models=models, **where) as store:
        yield store if job is None else JournaledStore(store, job)


def undo_cut_job(
    home: str, embedding_model: str, models: Models | None, shared: SharedMemory | None, job: str
) -> int:
    """Undo what an earlier, cut run of `job` wrote to this memory (a job runs again only when
    it has no record: it was cut); returns how many writes were undone."""
    return undo_cut_jobs(home, embedding_model, models, shared, [job]).get(job, 0)


def undo_cut_jobs(
    home: str,
    embedding_model: str,
    models: Models | None,
    shared: SharedMemory | None,
    jobs: Collection[str],
) -> dict[str, int]:
    """Undo, together and newest write first, what those of `jobs` that left a journal in this
    memory wrote (the driver passes the jobs with no record: cut); writes undone per job."""
    from evals.common.journal import journaled_jobs, undo_jobs

    with project_store(home, embedding_model, models, shared=shared) as store:
        return undo_jobs(store, [j for j in journaled_jobs(store) if j in jobs])


class SuccessLessonsOnly(BaseStore):
    """`store` as prompts see it with only lessons learned from successes (ReasoningBank's
    question, the stream's `carry-successes` arm): a search or listing of the reflections
    returns only records whose outcome is a success (not a failure, not an insight distilled
    from both, not a record from before outcomes); everything stays stored, every other call
    is `store`'s, and so are its extras (consolidation works on the store itself)."""

    def __init__(self, store: BaseStore) -> None:
        self.store = store

    def __getattr__(self, name: str) -> Any:  # the wrapped store's own extras
        if name == "store":  # not set yet (a copy being made): no recursion
            raise AttributeError(name)
        return getattr(self.store, name)

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        ops = list(ops)
        results = self.store.batch([_wide(op) for op in ops])
        return [_kept(op, r) for op, r in zip(ops, results, strict=True)]

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        ops = list(ops)
        results = await self.store.abatch([_wide(op) for op in ops])
        return [_kept(op, r) for op, r in zip(ops, results, strict=True)]


_EVERY = 100_000  # a search of the reflections asks for all of them, to page after filtering


def _filtered(op: Op) -> TypeGuard[SearchOp]:
    """A search of the reflections, by meaning or not (a store without a vector index ranks a
    listing itself, and an empty-namespace check lists one)."""
    return isinstance(op, SearchOp) and op.namespace_prefix[:1] == ("reflections",)


def _wide(op: Op) -> Op:
    return op._replace(limit=_EVERY, offset=0) if _filtered(op) else op


def _kept(op: Op, result: Result) -> Result:
    """The page `op` asked for, of the lessons learned from successes only."""
    if not _filtered(op):
        return result
    hits = [h for h in cast(list[SearchItem], result or []) if h.value.get("outcome") == "success"]
    return hits[op.offset : op.offset + op.limit]
