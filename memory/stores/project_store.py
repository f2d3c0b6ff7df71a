"""The project's persistent store, and the one way the CLI and the evaluations open it.

    with open_project_store(home, "local") as store:
        graph = build_reflective_graph().compile(store=store)

Nodes reach it as `runtime.store` through memory.agent_memory.AgentMemory; `langgraph dev`
injects its own store instead (langgraph.json's "store" section), and a graph compiled with
none runs with memory off.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, cast

from langchain_core.embeddings import Embeddings
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

from core.models import Models
from memory.agent_memory import TRAJECTORIES, WORKFLOWS
from memory.reflections.manager import ReflectionManager
from memory.stores.file_stores import TrajectoryFileStore, WorkflowFileStore
from memory.stores.sqlite_store import SqliteStore


@contextmanager
def open_project_store(
    home: str | Path,
    embedding_model: str = "local",
    *,
    models: Models | None = None,
    reembed: bool = False,
) -> Iterator[ProjectStore]:
    """The ProjectStore under `home` with the embeddings `embedding_model` names ('local',
    'provider:model', 'hashing[:DIM]'), taken from `models` (the caller's; else built for this
    store); closed (its index saved) when the block ends."""
    embeddings = (models or Models()).embeddings(embedding_model)
    store = ProjectStore.open(home, embeddings, reembed=reembed)
    try:
        yield store
    finally:
        store.close()


@contextmanager
def open_memory_store(
    home: str | Path,
    embedding_model: str = "local",
    *,
    models: Models | None = None,
    memory_url: str | None = None,
    scope: tuple[str, ...] = (),
) -> Iterator[BaseStore]:
    """What a graph is compiled with: the project's store under `home`, or with `memory_url`
    (a PostgreSQL connection string) the memory shared in that database under `scope`,
    searched through this home's store as the worker's mirror (memory.stores.shared_store)."""
    with open_project_store(home, embedding_model, models=models) as store:
        if not memory_url:
            yield store
            return
        from memory.stores.shared_store import open_shared_store

        with open_shared_store(memory_url, store, scope) as shared:
            yield shared


class ProjectStore(BaseStore):
    """Workflows and trajectories in their readable files, every other namespace in SQLite.

    `ProjectStore.open(home, embeddings)`: ("workflows", site) items are HOME/workflows/*.txt,
    ("trajectories", site) items HOME/trajectories/*.jsonl, and every other namespace
    (reflections first of all) lives in the SqliteStore under HOME/memory/.
    """

    def __init__(self, default: SqliteStore, routes: dict[str, BaseStore]) -> None:
        self.default = default
        self.routes = routes

    @classmethod
    def open(
        cls, home: str | Path, embeddings: Embeddings, *, reembed: bool = False
    ) -> ProjectStore:
        """The store under `home`; `reembed` first recomputes every stored vector with
        `embeddings` and adopts it as the store's embedder."""
        routes: dict[str, BaseStore] = {
            WORKFLOWS: WorkflowFileStore(home, embeddings),
            TRAJECTORIES: TrajectoryFileStore(home),
        }
        return cls(SqliteStore.open(home, embeddings, reembed=reembed), routes)

    def _store(self, namespace: tuple[str, ...]) -> BaseStore:
        return self.routes.get(namespace[0], self.default) if namespace else self.default

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        results: list[Result] = []
        for op in ops:
            if isinstance(op, GetOp | PutOp):
                results.append(self._store(op.namespace).batch([op])[0])
            elif isinstance(op, SearchOp) and op.namespace_prefix:
                results.append(self._store(op.namespace_prefix).batch([op])[0])
            elif isinstance(op, SearchOp):
                results.append(self._search_everywhere(op))
            elif isinstance(op, ListNamespacesOp):
                everything = ListNamespacesOp(
                    match_conditions=op.match_conditions, max_depth=op.max_depth, limit=10**9
                )
                spaces: set[tuple[str, ...]] = set()
                for store in self._all():
                    spaces.update(cast(list[tuple[str, ...]], store.batch([everything])[0]))
                results.append(sorted(spaces)[op.offset : op.offset + op.limit])
            else:
                raise TypeError(f"unknown store operation {type(op).__name__}")
        return results

    def _all(self) -> list[BaseStore]:
        return [self.default, *self.routes.values()]

    def _search_everywhere(self, op: SearchOp) -> list[SearchItem]:
        wide = SearchOp(
            op.namespace_prefix, filter=op.filter, limit=op.limit + op.offset, query=op.query
        )
        found: list[SearchItem] = []
        for store in self._all():
            found.extend(cast(list[SearchItem], store.batch([wide])[0]))
        if op.query:
            found.sort(key=lambda item: -(item.score or 0.0))
        return found[op.offset : op.offset + op.limit]

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        return await asyncio.to_thread(self.batch, list(ops))

    def reflection_manager(self, namespace: str, chat_model: Any = None) -> ReflectionManager:
        """The reflections of `namespace` over this store's engine (see SqliteStore's)."""
        return self.default.reflection_manager(namespace, chat_model)

    def close(self) -> None:
        self.default.close()
