"""Memory search in a store that has no vector index, and the warning when memory is off.

LangGraph's `InMemoryStore()` (and any store made without `index=`) answers a search with a
query by listing items unscored. The agent's memory then ranks the namespace's items itself
with the run's embeddings (the same text fields and cosine similarity an indexed store uses,
so the relevance floor means the same): memory works, at the cost of embedding every item of
the namespace once per distinct text (CachedEmbeddings keeps them). A store with thousands of
memories should get an index: `InMemoryStore(index={"embed": ..., "dims": ...})`.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from langchain_core.embeddings import Embeddings
from langgraph.store.base import BaseStore, SearchItem

LIST_LIMIT = 10_000
PAGE = 500  # items a listing asks a store for at once
# Embeddings, or how to get them when first needed (an empty store never loads a model).
EmbeddingsSource = Embeddings | Callable[[], Embeddings]


class MemoryOffWarning(UserWarning):
    """Memory is off for a run: nothing is recalled (or nothing saved); says how to turn it on."""


def warn_memory_off(message: str) -> None:
    """A warning a user sees (once per place, as Python shows warnings), naming the cause."""
    warnings.warn(message, MemoryOffWarning, stacklevel=3)


class UnindexedSearch:
    """One memory's search of a store without a vector index: with its embeddings (got when
    first needed), else off, with one MemoryOffWarning saying why."""

    def __init__(self, embeddings: EmbeddingsSource | None) -> None:
        self.embeddings = embeddings
        self.off = False

    def search(
        self,
        store: BaseStore,
        namespace: tuple[str, ...],
        query: str,
        fields: Sequence[str],
        limit: int,
    ) -> list[SearchItem]:
        if self.off:
            return []
        try:
            if self.embeddings is None:
                raise LookupError("no embeddings were given to search it with")
            source = self.embeddings
            embeddings = source if isinstance(source, Embeddings) else source()
            return search_unindexed(store, namespace, query, fields, embeddings, limit)
        except (LookupError, ImportError, OSError, ValueError, RuntimeError) as exc:
            self.off = True  # a model that failed to load is not tried again for each prompt
            reason = exc if isinstance(exc, LookupError) else f"its embeddings failed ({exc})"
            warn_memory_off(
                f"memory recall is off: the store has no vector index, and {reason}: give "
                "the store an index "
                "(InMemoryStore(index={'embed': ..., 'dims': ...})) to recall memories"
            )
            return []


def search_unindexed(
    store: BaseStore,
    namespace: tuple[str, ...],
    query: str,
    fields: Sequence[str],
    embeddings: Embeddings,
    limit: int,
) -> list[SearchItem]:
    """The `limit` items under `namespace` nearest to `query` by cosine similarity of their
    first present `fields` text, scored as an indexed store scores them."""
    items = [i for i in store.search(namespace, limit=LIST_LIMIT) if _text(i.value, fields)]
    if not items:
        return []
    docs = np.asarray(embeddings.embed_documents([_text(i.value, fields) for i in items]))
    wanted = np.asarray(embeddings.embed_query(query))
    norms = np.linalg.norm(docs, axis=1) * (np.linalg.norm(wanted) or 1.0)
    scores = docs @ wanted / np.where(norms == 0, 1.0, norms)
    best = np.argsort(-scores)[:limit]
    return [_scored(items[i], float(scores[i])) for i in best]


def _text(value: dict[str, Any], fields: Sequence[str]) -> str:
    for name in fields:
        text = value.get(name)
        if isinstance(text, str) and text.strip():
            return text
    return ""


def _scored(item: Any, score: float) -> SearchItem:
    return SearchItem(
        namespace=item.namespace,
        key=item.key,
        value=item.value,
        created_at=item.created_at,
        updated_at=item.updated_at,
        score=score,
    )


def every_item(
    store: BaseStore, prefix: tuple[str, ...], filter: dict[str, Any] | None = None
) -> list[SearchItem]:
    """Every item under `prefix` (that `filter` matches), a page at a time: a listing is never
    cut short, however many runs a home has recorded."""
    found: list[SearchItem] = []
    while True:
        page = store.search(prefix, filter=filter, limit=PAGE, offset=len(found))
        found.extend(page)
        if len(page) < PAGE:
            return found
