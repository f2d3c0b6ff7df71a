"""Shared deployments: reflections kept in PostgreSQL (LangGraph's PostgresStore), searched locally.

Several workers on several machines point at one PostgreSQL database. PostgreSQL holds the
records (the truth, shared); each worker mirrors them into its local store (SQLite + FAISS under
its own home) and does vector search there. pgvector is not installable on this project's
machines, so the PostgresStore is set up without an `index` config (no vector columns); where
pgvector exists, PostgresStore's own `index=` search could replace the local FAISS mirror.

Consistency: a save goes to PostgreSQL first (so it is shared before it is acknowledged), then
to the local mirror. `pull()` reconciles the mirror with PostgreSQL (adds, updates and deletes
by key and updated_at); it runs on open and before a search when `pull_interval_s` has passed,
so another worker's reflections become visible within that interval.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from langgraph.store.base import BaseStore

from memory.engine.rows import Claim
from memory.reflections.manager import ReflectionManager, namespace_path
from memory.reflections.schema import Reflection
from memory.reflections.scoring import ScoredReflection

PAGE = 500


@contextmanager
def postgres_store(conn_string: str) -> Iterator[BaseStore]:
    """LangGraph's PostgresStore, tables created, no vector index (see module docstring)."""
    try:
        from langgraph.store.postgres import PostgresStore
    except ImportError as exc:
        raise ImportError(
            "PostgreSQL memory needs: pip install langgraph-checkpoint-postgres 'psycopg[binary]'"
        ) from exc
    with PostgresStore.from_conn_string(conn_string) as store:
        with _one_at_a_time(conn_string):
            store.setup()
        yield store


# an application-wide key for PostgreSQL's advisory lock around PostgresStore.setup()
SETUP_LOCK = 0x5EF1EC7
SETUP_WAIT_S = 300.0  # PostgresStore's migrations take well under a second
SETUP_POLL_S = 0.2


@contextmanager
def _one_at_a_time(conn_string: str, wait_s: float = SETUP_WAIT_S) -> Iterator[None]:
    """Hold a PostgreSQL advisory lock: two workers setting up a fresh database at once both
    ran PostgresStore's first migration, and one died of a duplicate key in its migrations
    table (tests/integration/test_shared_memory_workers.py).

    The lock is tried, not waited for: a worker blocked in `pg_advisory_lock` holds a running
    statement, and the holder's `CREATE INDEX CONCURRENTLY` waits for every running statement
    to end, so the two would wait on each other for ever (a deadlock PostgreSQL cannot see: the
    lock and the index are on two connections of one worker)."""
    import psycopg

    with psycopg.connect(conn_string, autocommit=True) as conn:
        deadline = time.monotonic() + wait_s
        while not _try_lock(conn):
            if time.monotonic() > deadline:
                raise TimeoutError(
                    f"memory setup: another worker held the database's setup lock for over "
                    f"{wait_s:.0f} s"
                )
            time.sleep(SETUP_POLL_S)
        try:
            yield
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", (SETUP_LOCK,))


def _try_lock(conn: Any) -> bool:
    row = conn.execute("SELECT pg_try_advisory_lock(%s)", (SETUP_LOCK,)).fetchone()
    return bool(row and row[0])


class SharedReflectionManager(ReflectionManager):
    """A ReflectionManager whose records live in a shared BaseStore (PostgresStore)."""

    def __init__(self, shared: BaseStore, *, pull_interval_s: float = 5.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.shared = shared
        self.path = namespace_path(self.namespace)
        self.pull_interval_s = pull_interval_s
        self._pulled_at = float("-inf")
        self.pull()

    def _shared_items(self) -> Iterator[Any]:
        offset = 0
        while True:
            page = self.shared.search(self.path, limit=PAGE, offset=offset)
            yield from page
            if len(page) < PAGE:
                return
            offset += PAGE

    def pull(self) -> int:
        """Make the local mirror equal PostgreSQL's records; returns how many changed."""
        local = {it.key: it.updated_at for it in self.backend.records.items(self.prefix)}
        remote: dict[str, Reflection] = {}
        stamps: dict[str, float] = {}
        for item in self._shared_items():
            remote[item.key] = Reflection.model_validate(item.value)
            stamps[item.key] = item.updated_at.timestamp()
        # a record changed remotely after our copy was written is taken again
        fresh = [r for k, r in remote.items() if k not in local or stamps[k] > local[k]]
        if fresh:
            super().save_many(fresh)
        gone = [k for k in local if k not in remote]
        for key in gone:
            self.backend.records.delete(self.prefix, key)
        self._pulled_at = time.monotonic()
        return len(fresh) + len(gone)

    def save_many(
        self, reflections: Iterable[Reflection], *, claim: Claim | None = None
    ) -> list[str]:
        batch = list(reflections)
        if claim is not None:
            return self._save_claimed(batch, claim)
        for r in batch:  # shared first: acknowledged means every worker can see it
            self.shared.put(self.path, r.id, r.model_dump(mode="json"), index=False)
        return super().save_many(batch)

    def _save_claimed(self, batch: list[Reflection], claim: Claim) -> list[str]:
        """Claimed work (consolidation) is stored locally with its claim in one transaction,
        then shared; if sharing fails, the local save and the claim are undone and it raises."""
        ids = super().save_many(batch, claim=claim)
        try:
            for r in batch if ids else []:
                self.shared.put(self.path, r.id, r.model_dump(mode="json"), index=False)
        except BaseException:
            key, expected, new = claim
            for r in batch:
                self.backend.records.delete(self.prefix, r.id)
            self.backend.records.claim(key, new, expected or "")
            raise
        return ids

    def search(self, query: str, k: int = 3, **kwargs: Any) -> list[ScoredReflection]:
        if time.monotonic() - self._pulled_at >= self.pull_interval_s:
            self.pull()
        return super().search(query, k, **kwargs)

    def delete_reflection(self, reflection_id: str) -> bool:
        existed = self.shared.get(self.path, reflection_id) is not None
        self.shared.delete(self.path, reflection_id)
        return super().delete_reflection(reflection_id) or existed

    def clear(self) -> int:
        keys = [item.key for item in self._shared_items()]
        for key in keys:
            self.shared.delete(self.path, key)
        return max(super().clear(), len(keys))
