"""One memory store on disk (or in process): records + FAISS index + the embedder, kept in sync.

Shared by the ReflectionManager (memory/reflections.py) and the LangGraph Store adapter
(memory/langgraph_store.py), so both see the same items. Other processes' writes are picked up
by `sync()`, which every read calls: it adds to the index whatever records are newer than the
index covers (a cheap indexed query when nothing changed).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from langchain_core.embeddings import Embeddings

from core.embeddings import as_matrix, embedder_dimension, embedder_name
from memory.record_store import Item, Light, NewItem, RecordStore
from memory.record_types import Claim
from memory.vector_index import VectorIndex

DB_NAME = "memory.sqlite3"


@dataclass
class Hit:
    """A search result: the record's ranking fields and its cosine similarity to the query."""

    light: Light
    relevance: float


class MemoryBackend:
    """Records and vectors of one store; thread-safe; one per (folder, embedder) per process."""

    def __init__(
        self,
        records: RecordStore,
        embeddings: Embeddings,
        index_dir: Path | None,
        *,
        reembed: bool = False,
    ) -> None:
        self.records = records
        self.embeddings = embeddings
        self.embedder = embedder_name(embeddings)
        self.dimension = embedder_dimension(embeddings)
        if reembed:
            self._reembed()
        records.bind_embedder(self.embedder, self.dimension)
        path = index_dir / f"index.{records.store_id}.faiss" if index_dir else None
        self.index = VectorIndex(self.dimension, path)
        self._lock = threading.RLock()
        if self.index.covered_seq > records.max_seq():  # an index from a wiped database
            self.index.reset()
        self.sync()

    @classmethod
    def open(
        cls, folder: str | Path, embeddings: Embeddings, *, reembed: bool = False
    ) -> MemoryBackend:
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        return cls(RecordStore(folder / DB_NAME), embeddings, folder, reembed=reembed)

    @classmethod
    def in_memory(cls, embeddings: Embeddings) -> MemoryBackend:
        return cls(RecordStore(":memory:"), embeddings, None)

    # -- index maintenance ---------------------------------------------------------------------

    def sync(self) -> int:
        """Index every record newer than the index; save the index when the tail got large."""
        added = 0
        with self._lock:
            for seqs, blob in self.records.vectors_after(self.index.covered_seq):
                if seqs.size:
                    vecs = np.frombuffer(blob, dtype=np.float32).reshape(seqs.size, -1)
                    self.index.add(seqs, vecs)
                    added += int(seqs.size)
            if self.index.should_save():
                self.index.save()
        return added

    def flush(self) -> None:
        """Write the index file now if anything is unsaved (e.g. before exit)."""
        with self._lock:
            self.sync()
            if self.index.unsaved:
                self.index.save()

    def rebuild_index(self) -> int:
        with self._lock:
            self.index.reset()
            return self.sync()

    def _reembed(self) -> None:
        """Re-compute every vector with the current embedder, then record it as the store's."""
        stored = self.records.meta("embedder")
        if stored == self.embedder and self.records.meta("dimension") == str(self.dimension):
            return
        done = 0
        while True:
            batch = self.records.items("", limit=256, offset=done)
            if not batch:
                break
            vecs = self.embed_texts([it.text or "" for it in batch])
            self.records.set_embeddings(
                [
                    (it.seq, v.tobytes())
                    for it, v in zip(batch, vecs, strict=True)
                    if it.text is not None
                ]
            )
            done += len(batch)
        self.records.rebind_embedder(self.embedder, self.dimension)

    # -- writes and reads ----------------------------------------------------------------------

    def embed_texts(self, texts: Sequence[str]) -> np.ndarray:
        return as_matrix(self.embeddings.embed_documents(list(texts)), self.dimension)

    def embed_query(self, text: str) -> np.ndarray:
        return as_matrix([self.embeddings.embed_query(text)], self.dimension)[0]

    def put_many(self, items: Sequence[NewItem], claim: Claim | None = None) -> list[int] | None:
        """Embed items that have text and no vector, store them in one transaction, index them.

        With `claim` (a compare-and-set on the store's metadata, done in the same transaction)
        nothing is stored and None is returned when the claim was lost.
        """
        todo = [it for it in items if it.text is not None and it.embedding is None]
        if todo:
            for it, vec in zip(todo, self.embed_texts([it.text or "" for it in todo]), strict=True):
                it.embedding = vec.tobytes()
        if claim is None:
            seqs: list[int] | None = self.records.put_many(items)
        else:
            seqs = self.records.put_many_claiming(items, claim)
        self.sync()
        return seqs

    def search(self, prefix: str, query: str, n: int, min_candidates: int = 200) -> list[Hit]:
        """Up to n items under `prefix` nearest to `query`, best first (exact cosine).

        Other namespaces share the index, so candidates are widened until n in-prefix hits
        are found or the index is exhausted.
        """
        self.sync()
        qvec = self.embed_query(query)
        want = max(n, min_candidates)
        while True:
            pairs = self.index.search(qvec, want)
            found = self.records.light([s for s, _ in pairs])  # deleted seqs drop out here
            hits = [
                Hit(found[s], rel)
                for s, rel in pairs
                if s in found and _under(found[s].namespace, prefix)
            ]
            if len(hits) >= n or want >= self.index.ntotal:
                return hits
            want *= 4

    def load(self, hits: Sequence[Hit]) -> list[tuple[Item, Hit]]:
        """Full records for these hits, in order; corrupt or vanished ones are left out."""
        found = self.records.by_seqs([h.light.seq for h in hits])
        return [(found[h.light.seq], h) for h in hits if h.light.seq in found]

    def close(self) -> None:
        self.flush()
        self.records.close()


def _under(namespace: str, prefix: str) -> bool:
    return not prefix or namespace == prefix or namespace.startswith(prefix + ".")
