"""What one job wrote to memory, kept in the same store, so the writes of a job that was cut
(a killed worker, a SIGKILL) can be undone before the job runs again.

An experiment that carries memory from one question to the next resumes from its records; a
question that was answering when the run died has no record and runs again, but what its cut
attempt saved (reflections, trajectories, workflows) would still be in memory, and the rerun
would read lessons from an attempt at itself. `JournaledStore` notes, before each write, what
the key held until then; `undo_job` puts those values back (or deletes what was new), newest
first, and forgets the journal:

    with open_memory_store(home) as store:
        undo_job(store, job)                      # a cut attempt's writes, if any
        graph.compile(store=JournaledStore(store, job)).invoke(...)

The journal lives in the store under ("journal", job), so it reaches every worker that shares
the store, and survives the kill it is for. A finished job's journal stays: that job never runs
again, and the journal tells what it wrote.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterable
from typing import Any

from langgraph.store.base import BaseStore, Op, PutOp, Result

JOURNAL = "journal"
_ALL = 10_000  # a job's writes; far more than one question's


class JournaledStore(BaseStore):
    """`store`, with every write of this job journaled before it is made. Reads, and whatever
    else the store offers, go to `store` itself."""

    def __init__(self, store: BaseStore, job: str) -> None:
        self.store, self.namespace = store, (JOURNAL, job)
        self._lock = threading.Lock()  # parallel tasks write at once; the journal keeps order
        self._seq = len(store.search(self.namespace, limit=_ALL))

    def __getattr__(self, name: str) -> Any:  # the wrapped store's own extras
        if name == "store":  # not set yet (a copy being made): no recursion
            raise AttributeError(name)
        return getattr(self.store, name)

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        ops = list(ops)
        writes = [op for op in ops if isinstance(op, PutOp) and op.namespace[:1] != (JOURNAL,)]
        if not writes:  # reads run side by side
            return self.store.batch(ops)
        with self._lock:
            for op in writes:
                self._note(op)
            return self.store.batch(ops)

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        # the journal must be written before the write, in order: the sync path, off the loop
        return await asyncio.to_thread(self.batch, list(ops))

    def _note(self, op: PutOp) -> None:
        prior = self.store.get(op.namespace, op.key)
        entry = {
            "namespace": list(op.namespace),
            "key": op.key,
            "prior": dict(prior.value) if prior else None,
            "index": op.index,
        }
        self.store.put(self.namespace, f"{self._seq:06d}", entry, index=False)
        self._seq += 1


def undo_job(store: BaseStore, job: str) -> int:
    """Undo what `job` wrote (newest first: the value each key held before it, or nothing) and
    forget its journal; returns how many writes were undone (0 for a job that never ran)."""
    return undo_jobs(store, [job]).get(job, 0)


def journaled_jobs(store: BaseStore) -> list[str]:
    """Every job with a journal in `store` (finished ones too: a finished job's journal stays)."""
    spaces = store.list_namespaces(prefix=(JOURNAL,), max_depth=2, limit=_ALL)
    return sorted({space[1] for space in spaces if len(space) == 2})


def undo_jobs(store: BaseStore, jobs: Iterable[str]) -> dict[str, int]:
    """Undo what every one of `jobs` wrote, together, newest write first across all of them,
    and forget their journals; returns the writes undone per job (jobs with none left out).

    Undone one job at a time, two cut jobs that wrote the same key (a workflow re-induced by
    both) could leave the first one's value: undoing the earlier job first puts back the value
    from before it, then undoing the later one puts back the earlier job's. One order across
    both, by when each write was journaled, ends with the value from before either.
    """
    entries = [(item, job) for job in jobs for item in store.search((JOURNAL, job), limit=_ALL)]
    entries.sort(key=lambda e: (e[0].updated_at, e[1], e[0].key), reverse=True)
    undone: dict[str, int] = {}
    for item, job in entries:
        target, key = tuple(item.value["namespace"]), item.value["key"]
        prior = item.value.get("prior")
        if prior is None:
            store.delete(target, key)
        else:
            store.put(target, key, prior, index=item.value.get("index"))
        store.delete((JOURNAL, job), item.key)
        undone[job] = undone.get(job, 0) + 1
    return undone
