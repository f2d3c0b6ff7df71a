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

import re
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from typing import Any, Literal, cast

from langgraph.store.base import (
    BaseStore,
    GetOp,
    Item,
    ListNamespacesOp,
    Op,
    PutOp,
    SearchItem,
    SearchOp,
)

from memory.agent_memory import REFLECTION_FIELDS, WORKFLOW_FIELDS
from memory.labels import REFLECTIONS, TRAJECTORIES, WORKFLOWS
from memory.stores.dispatch import DispatchingStore
from memory.stores.matching import listed_namespaces
from memory.unindexed import every_item


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


# what the mirror embeds of a pulled record, as AgentMemory asked when it saved it
MIRROR_INDEX: dict[str, Literal[False] | list[str]] = {
    REFLECTIONS: REFLECTION_FIELDS,
    WORKFLOWS: WORKFLOW_FIELDS,
    TRAJECTORIES: False,
}


class SharedStore(DispatchingStore):
    """`shared` (PostgresStore) holds the records; `local` (the worker's project store) mirrors
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

    def _put(self, op: PutOp) -> None:
        # shared first (no vectors there: PostgreSQL has no pgvector here)
        self.shared.batch([PutOp(self._in(op.namespace), op.key, op.value, index=False)])
        self.local.batch([op])

    def _get(self, op: GetOp) -> Item | None:
        item = self.shared.get(self._in(op.namespace), op.key)
        return item and self._out(item)

    def _search(self, op: SearchOp) -> list[SearchItem]:
        if op.query:  # by meaning: the mirror, brought up to date when due
            self._pull_if_due(op.namespace_prefix)
            return cast(list[SearchItem], self.local.batch([op])[0])
        wide = op._replace(namespace_prefix=self._in(op.namespace_prefix))
        return [self._out(i) for i in cast(list[SearchItem], self.shared.batch([wide])[0])]

    def _in(self, namespace: tuple[str, ...]) -> tuple[str, ...]:
        return self.scope + tuple(namespace)

    def _out(self, item: Any) -> Any:
        item.namespace = tuple(item.namespace[len(self.scope) :])
        return item

    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        every = self.shared.list_namespaces(prefix=self.scope or None, limit=10**9)
        return listed_namespaces((ns[len(self.scope) :] for ns in every), op)

    def _pull_if_due(self, prefix: tuple[str, ...]) -> None:
        if time.monotonic() - self._pulled_at.get(prefix, float("-inf")) >= self.pull_interval_s:
            self.pull(prefix)

    def pull(self, prefix: tuple[str, ...]) -> int:
        """Make the mirror's records under `prefix` equal the shared database's; how many
        changed."""
        shared = every_item(self.shared, self._in(prefix))
        remote = {(i.namespace, i.key): i for i in map(self._out, shared)}
        mirror = {(i.namespace, i.key): i.value for i in every_item(self.local, prefix)}
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
