"""The project's persistent store, and the one way the CLI and the evaluations open it.

    with open_project_store(home, "local") as store:
        graph = build_reflective_graph().compile(store=store)

Every namespace (reflections, workflows, trajectories) lives in the SqliteStore under
HOME/memory/; workflows and trajectories travel as files through `workflows export` and
`workflows import` (memory.exchange). Nodes reach the store as `runtime.store` through
memory.agent_memory.AgentMemory; `langgraph dev` injects its own store instead (langgraph.json's
"store" section), and a graph compiled with none runs with memory off.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from langgraph.store.base import BaseStore

from core.models import Models
from memory.exchange import import_home_once
from memory.stores.sqlite_store import SqliteStore


@contextmanager
def open_project_store(
    home: str | Path,
    embedding_model: str = "local",
    *,
    models: Models | None = None,
    reembed: bool = False,
) -> Iterator[SqliteStore]:
    """The store under `home` with the embeddings `embedding_model` names ('local',
    'provider:model', 'hashing[:DIM]'), taken from `models` (the caller's; else built for this
    store); closed (its index saved) when the block ends. Workflow and trajectory files a home
    kept before the store held them are imported the first time (memory.exchange)."""
    embeddings = (models or Models()).embeddings(embedding_model)
    store = SqliteStore.open(home, embeddings, reembed=reembed)
    try:
        import_home_once(store, home)
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
