"""Memory shared by several workers or machines: one LangGraph Store over PostgreSQL, searched
through a local mirror.

    with open_project_store(home, "local", memory_url="postgresql://…/agent") as store:
        graph = build_reflective_graph().compile(store=store)

PostgreSQL holds every record (LangGraph's PostgresStore: the truth, shared, readable by any
LangChain app); each worker mirrors what it searches into its own project store under HOME
(SQLite + FAISS, workflow and trajectory files) and runs vector search there, since pgvector is
not installable on this project's machines. The graphs see one BaseStore (`SharedStore`) and use
it as they use the project's store, so reflections, lessons, workflows and trajectories saved by
one worker reach the prompts of the others.

Consistency: a put or delete goes to PostgreSQL first (shared before it is acknowledged; if
PostgreSQL refuses, the operation raises and the mirror is untouched), then to the mirror. A
search with a query first pulls its namespace from PostgreSQL when `pull_interval_s` has passed
since that namespace's last pull (adds, updates and deletes), so another worker's records are
found within that interval. Reads without a query (get, list, filter) go to PostgreSQL itself.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Iterable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from typing import Any, Literal, cast

from langgraph.store.base import (
    BaseStore,
    GetOp,
    ListNamespacesOp,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
)

from memory.agent_memory import (
    REFLECTION_FIELDS,
    REFLECTIONS,
    TRAJECTORIES,
    WORKFLOW_FIELDS,
    WORKFLOWS,
)
from memory.stores.sqlite_store import listed_namespaces


@dataclass(frozen=True)
class SharedMemory:
    """Where a run's memory lives when shared: the database and the scope within it."""

    url: str
    scope: tuple[str, ...] = ()


class SharedMemoryUnavailable(RuntimeError):
    """The shared memory's database cannot be reached or used (the CLI exits 3)."""


@contextmanager
def open_shared_store(
    url: str, local: BaseStore, scope: tuple[str, ...] = ()
) -> Iterator[SharedStore]:
    """The SharedStore over the PostgreSQL database at `url` (tables created on first use)
    and `local` as this worker's mirror; a database that cannot be reached is one clear error
    (the password never in it)."""
    from memory.stores.postgres import postgres_store

    with ExitStack() as stack:
        try:
            shared = stack.enter_context(postgres_store(url))
        except ImportError:
            raise
        except Exception as exc:  # psycopg's errors, without importing psycopg to name them
            raise SharedMemoryUnavailable(
                f"shared memory at {redacted(url)} cannot be used: {exc}".strip()
            ) from exc
        yield SharedStore(shared, local, scope=scope)


def redacted(url: str) -> str:
    """`url` with its password replaced by ***."""
    return re.sub(r"(://[^:/@]+:)[^/]*@", r"\1***@", url)


PAGE = 500
# what the mirror embeds of a pulled record, as AgentMemory asked when it saved it
MIRROR_INDEX: dict[str, Literal[False] | list[str]] = {
    REFLECTIONS: REFLECTION_FIELDS,
    WORKFLOWS: WORKFLOW_FIELDS,
    TRAJECTORIES: False,
}


class SharedStore(BaseStore):
    """`shared` (PostgresStore) holds the records; `local` (the worker's ProjectStore) mirrors
    the namespaces searched here and answers vector searches. `scope` prefixes every namespace
    in the shared database, so several memories (an experiment's arms, teams) can live in one
    database apart; the graphs and the mirror see the namespaces without it."""

    def __init__(
        self,
        shared: BaseStore,
        local: BaseStore,
        *,
        pull_interval_s: float = 5.0,
        scope: tuple[str, ...] = (),
    ) -> None:
        self.shared, self.local, self.scope = shared, local, tuple(scope)
        self.pull_interval_s = pull_interval_s
        self._pulled_at: dict[tuple[str, ...], float] = {}

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        results: list[Result] = []
        for op in ops:
            if isinstance(op, PutOp):
                # shared first (no vectors there: PostgreSQL has no pgvector here)
                self.shared.batch([PutOp(self._in(op.namespace), op.key, op.value, index=False)])
                self.local.batch([op])
                results.append(None)
            elif isinstance(op, SearchOp) and op.query:
                self._pull_if_due(op.namespace_prefix)
                results.append(self.local.batch([op])[0])
            elif isinstance(op, GetOp):
                item = self.shared.get(self._in(op.namespace), op.key)
                results.append(item and self._out(item))
            elif isinstance(op, SearchOp):
                wide = op._replace(namespace_prefix=self._in(op.namespace_prefix))
                found = cast(list[SearchItem], self.shared.batch([wide])[0])
                results.append([self._out(i) for i in found])
            elif isinstance(op, ListNamespacesOp):
                results.append(self._namespaces(op))
            else:
                raise TypeError(f"unknown store operation {type(op).__name__}")
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        return await asyncio.to_thread(self.batch, list(ops))

    def _in(self, namespace: tuple[str, ...]) -> tuple[str, ...]:
        return self.scope + tuple(namespace)

    def _out(self, item: Any) -> Any:
        item.namespace = tuple(item.namespace[len(self.scope) :])
        return item

    def _namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        every = self.shared.list_namespaces(prefix=self.scope or None, limit=10**9)
        return listed_namespaces((ns[len(self.scope) :] for ns in every), op)

    def _pull_if_due(self, prefix: tuple[str, ...]) -> None:
        if time.monotonic() - self._pulled_at.get(prefix, float("-inf")) >= self.pull_interval_s:
            self.pull(prefix)

    def pull(self, prefix: tuple[str, ...]) -> int:
        """Make the mirror's records under `prefix` equal the shared database's; how many
        changed."""
        shared = _all_items(self.shared, self._in(prefix))
        remote = {(i.namespace, i.key): i for i in map(self._out, shared)}
        mirror = {(i.namespace, i.key): i.value for i in _all_items(self.local, prefix)}
        changed = [item for key, item in remote.items() if mirror.get(key) != item.value]
        ops: list[Op] = [
            PutOp(i.namespace, i.key, i.value, index=MIRROR_INDEX.get(i.namespace[0]))
            for i in changed
        ]
        ops += [PutOp(ns, key, None) for ns, key in mirror if (ns, key) not in remote]
        if ops:
            self.local.batch(ops)
        self._pulled_at[prefix] = time.monotonic()
        return len(ops)

    def close(self) -> None:
        close = getattr(self.local, "close", None)
        if callable(close):
            close()


def _all_items(store: BaseStore, prefix: tuple[str, ...]) -> Iterator[SearchItem]:
    offset = 0
    while True:
        page = store.search(prefix, limit=PAGE, offset=offset)
        yield from page
        if len(page) < PAGE:
            return
        offset += PAGE
