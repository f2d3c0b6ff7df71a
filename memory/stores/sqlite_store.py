"""LangGraph's Store API (BaseStore) over the storage engine, so graphs and other apps share it.

`SqliteStore.open(home, embeddings)` reads and writes the same SQLite + FAISS files as
`ReflectionManager.open(home, …)`: reflections saved by the agent are items in namespace
("reflections", <namespace parts>), keyed by reflection id, and anything put there by another
LangChain app is visible to the agent. Namespaces are tuples of labels without dots; they are
stored dotted. `search(..., query=…)` is vector search (cosine, best first); without a query it
lists items oldest first. Filters use LangGraph's own comparison rules.

Why not LangGraph's own `langgraph.store.sqlite.SqliteStore` (from a package the project
declares), measured side by side by `python -m bench.langgraph_stores` (2,000 records, two
concurrent writers of 300 puts, a writer SIGKILLed after 3 s): its vector search is sqlite-vec,
a loadable SQLite extension, and this project's Python (pyenv 3.11, as CI builds it) has a
sqlite3 module built without extension loading, so there it cannot search memory by meaning at
all, which is what every prompt's memory section does; this store searches with FAISS (top-3 in
1.7 ms) and puts in 0.78 ms against its 1.59 ms (2.0x). Both kept every acknowledged put
through the concurrent writers and the kill, so crash safety alone would not be a reason.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from langchain_core.embeddings import Embeddings
from langgraph.store.base import (
    GetOp,
    Item,
    ListNamespacesOp,
    PutOp,
    SearchItem,
    SearchOp,
)
from langgraph.store.base.embed import get_text_at_path, tokenize_path

from memory.engine.backend import MEMORY_DIR, MemoryBackend
from memory.engine.rows import Item as Stored
from memory.engine.rows import NewItem
from memory.reflections.manager import ReflectionManager
from memory.stores.dispatch import DispatchingStore
from memory.stores.matching import listed_namespaces, value_matches


def _dotted(namespace: tuple[str, ...]) -> str:
    return ".".join(namespace)


def _when(ts: float) -> datetime:
    return datetime.fromtimestamp(ts, UTC)


def default_text(value: dict[str, Any]) -> str:
    """What to embed when a put names no fields: a reflection's task + lesson, else the JSON."""
    if isinstance(value.get("task"), str) and isinstance(value.get("reflection"), str):
        return f"{value['task']}\n{value['reflection']}"
    for key in ("text", "content", "memory"):
        if isinstance(value.get(key), str):
            return value[key]
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


class SqliteStore(DispatchingStore):
    """A persistent, multi-process BaseStore with FAISS vector search (see module docstring)."""

    def __init__(self, backend: MemoryBackend, *, fields: list[str] | None = None) -> None:
        self.backend = backend
        self.fields = fields  # None = default_text; else JSON paths as in LangGraph's IndexConfig

    @classmethod
    def open(
        cls,
        home: str | Path,
        embeddings: Embeddings,
        *,
        reembed: bool = False,
        fields: list[str] | None = None,
    ) -> SqliteStore:
        backend = MemoryBackend.open(Path(home) / MEMORY_DIR, embeddings, reembed=reembed)
        return cls(backend, fields=fields)

    # -- operations ----------------------------------------------------------------------------

    def _item(self, stored: Stored, score: float | None = None, search: bool = False) -> Item:
        ns = tuple(stored.namespace.split("."))
        if search:
            return SearchItem(
                ns,
                stored.key,
                stored.value,
                _when(stored.created_at),
                _when(stored.updated_at),
                score,
            )
        return Item(
            value=stored.value,
            key=stored.key,
            namespace=ns,
            created_at=_when(stored.created_at),
            updated_at=_when(stored.updated_at),
        )

    def _get(self, op: GetOp) -> Item | None:
        stored = self.backend.records.get(_dotted(op.namespace), op.key)
        return self._item(stored) if stored else None

    def _text(self, op: PutOp) -> str | None:
        assert op.value is not None
        if op.index is False:
            return None
        paths = op.index if isinstance(op.index, list) else self.fields
        if paths is None:
            return default_text(dict(op.value))
        texts = [t for p in paths for t in get_text_at_path(op.value, tokenize_path(p))]
        return "\n".join(texts) if texts else None

    def _put(self, op: PutOp) -> None:
        ns = _dotted(op.namespace)
        if op.value is None:
            self.backend.records.delete(ns, op.key)
            return
        importance = op.value.get("importance", 0.5)
        if not isinstance(importance, int | float) or not 0 <= importance <= 1:
            importance = 0.5
        self.backend.put_many(
            [NewItem(ns, op.key, dict(op.value), text=self._text(op), importance=float(importance))]
        )

    def _matches(self, stored: Stored, op: SearchOp) -> bool:
        return value_matches(stored.value, op.filter)

    def _search(self, op: SearchOp) -> list[SearchItem]:
        prefix = _dotted(op.namespace_prefix)
        if op.query:
            want = op.offset + op.limit
            hits = self.backend.search(prefix, op.query, want * (10 if op.filter else 1))
            ranked = [
                (item, h.relevance)
                for item, h in self.backend.load(hits)
                if self._matches(item, op)
            ]
            return [
                self._item(s, score, search=True)  # type: ignore[misc]
                for s, score in ranked[op.offset : want]
            ]
        found: list[SearchItem] = []
        skipped, page = 0, 0
        while len(found) < op.limit:  # page through, filtering, until the page is full
            batch = self.backend.records.items(prefix, limit=500, offset=page * 500)
            if not batch:
                break
            page += 1
            for stored in batch:
                if not self._matches(stored, op):
                    continue
                if skipped < op.offset:
                    skipped += 1
                    continue
                found.append(self._item(stored, None, search=True))  # type: ignore[arg-type]
                if len(found) == op.limit:
                    break
        return found

    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        spaces = [tuple(ns.split(".")) for ns in self.backend.records.namespaces()]
        return listed_namespaces(spaces, op)

    def reflection_manager(self, namespace: str, chat_model: Any = None) -> ReflectionManager:
        """The ReflectionManager over the same records (consolidation works on it directly)."""
        return ReflectionManager(backend=self.backend, namespace=namespace, chat_model=chat_model)

    def close(self) -> None:
        self.backend.close()
