"""One memory store on disk (or in process): records + FAISS index + the embedder, kept in sync.

Shared by the ReflectionManager (memory/reflections/manager.py) and the LangGraph Store adapter
(memory/stores/sqlite_store.py), so both see the same items. Other processes' writes are picked up
by `sync()`, which every read calls: it adds to the index whatever records are newer than the
index covers (a cheap indexed query when nothing changed).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from langchain_core.embeddings import Embeddings

from core.embeddings import as_matrix, embedder_dimension, embedder_name
from memory.engine.index_file import read_checked, remove_stale_files, write_temp
from memory.engine.records import RecordTable
from memory.engine.rows import Claim, Item, Light, NewItem
from memory.engine.vector_index import ANN_THRESHOLD, VectorIndex

log = logging.getLogger(__name__)
MEMORY_DIR = "memory"  # the engine's folder under the agent's home
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
        records: RecordTable,
        embeddings: Embeddings,
        index_dir: Path | None,
        *,
        reembed: bool = False,
        ann_threshold: int = ANN_THRESHOLD,
    ) -> None:
        self.records = records
        self.embeddings = embeddings
        self.embedder = embedder_name(embeddings)
        self.dimension = embedder_dimension(embeddings)
        if reembed:
            self._reembed()
        records.bind_embedder(self.embedder, self.dimension)
        self.index_path = index_dir / f"index.{records.store_id}.faiss" if index_dir else None
        self.index = VectorIndex(self.dimension, ann_threshold)
        self._lock = threading.RLock()
        if self.index_path is not None:
            remove_stale_files(self.index_path.parent, keep=self.index_path)
            self._load_index(self.index_path)
        self.sync()
        self.compact()

    @classmethod
    def open(
        cls,
        folder: str | Path,
        embeddings: Embeddings,
        *,
        reembed: bool = False,
        ann_threshold: int = ANN_THRESHOLD,
    ) -> MemoryBackend:
        records = RecordTable(Path(folder) / DB_NAME)  # creates the folder, with clear errors
        return cls(records, embeddings, Path(folder), reembed=reembed, ann_threshold=ann_threshold)

    @classmethod
    def in_memory(cls, embeddings: Embeddings) -> MemoryBackend:
        return cls(RecordTable(":memory:"), embeddings, None)

    # -- index maintenance ---------------------------------------------------------------------

    def _crc_key(self) -> str:
        return f"index_crc:{self.index_path.name if self.index_path else ''}"

    def _load_index(self, path: Path) -> None:
        found = read_checked(path, self.records.meta(self._crc_key()), self.dimension)
        if found is not None and not self.index.adopt(found):
            log.warning("index %s is of a kind this store does not build; rebuilding it", path)
        if self.index.covered_seq > self.records.max_seq():  # an index from a wiped database
            self.index.reset()

    def sync(self) -> int:
        """Index every record newer than the index; save the index when the tail got large."""
        with self._lock:
            batches = [
                (seqs, np.frombuffer(blob, dtype=np.float32).reshape(seqs.size, -1))
                for seqs, blob in self.records.vectors_after(self.index.covered_seq)
                if seqs.size
            ]
            added = sum(int(seqs.size) for seqs, _ in batches)
            if batches and self.index.ntotal == 0:  # (re)building: train once at the final size
                self.index.build(
                    np.concatenate([s for s, _ in batches]), np.concatenate([v for _, v in batches])
                )
            else:
                for seqs, vecs in batches:
                    self.index.add(seqs, vecs)
            if self.index.should_save() and not self.compact():  # compact() saves what it cuts
                self.save_index()
        return added

    def compact(self) -> int:
        """Drop the vectors of deleted or replaced records once they outnumber the live ones."""
        with self._lock:
            live = self.records.vector_count()
            if self.index.ntotal - live <= live:
                return 0
            dead = np.setdiff1d(self.index.ids(), self.records.vector_seqs(), assume_unique=True)
            removed = self.index.remove(dead)
            log.info("index compacted: %d dead vectors removed, %d live", removed, live)
            self.save_index()
        return removed

    def save_index(self) -> None:
        """Write the index atomically and record its checksum in the store's metadata."""
        if self.index_path is None:
            return
        with self._lock:
            tmp, crc = write_temp(self.index.faiss_index, self.index_path)
            self.records.install_file(tmp, self.index_path, self._crc_key(), crc)
            self.index.unsaved = 0

    def flush(self) -> None:
        """Write the index file now if anything is unsaved (e.g. before exit)."""
        with self._lock:
            self.sync()
            if self.index.unsaved:
                self.save_index()

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

    def search(
        self, prefix: str, query: str, n: int, min_candidates: int = 200, with_kind: bool = False
    ) -> list[Hit]:
        """Up to n items under `prefix` nearest to `query`, best first (cosine); `with_kind`
        fills Hit.light.kind (the value's "kind"), which costs a JSON parse per candidate.

        Other namespaces share the index, so candidates are widened until n in-prefix hits
        are found or every vector was considered.
        """
        self.sync()
        qvec = self.embed_query(query)
        want, exhaustive = max(n, min_candidates), False
        while True:
            pairs = self.index.search(qvec, want, exhaustive)
            found = self.records.light([s for s, _ in pairs], with_kind)  # deleted ones drop out
            hits = [
                Hit(found[s], rel)
                for s, rel in pairs
                if s in found and _under(found[s].namespace, prefix)
            ]
            if len(hits) >= n or (want >= self.index.ntotal and exhaustive):
                return hits
            # an approximate index may miss a small namespace's items: widen, then scan all
            exhaustive = want >= self.index.ntotal or self.index.kind == "exact"
            want = min(want * 4, self.index.ntotal)

    def load(self, hits: Sequence[Hit]) -> list[tuple[Item, Hit]]:
        """Full records for these hits, in order; corrupt or vanished ones are left out."""
        found = self.records.by_seqs([h.light.seq for h in hits])
        return [(found[h.light.seq], h) for h in hits if h.light.seq in found]

    def close(self) -> None:
        self.flush()
        self.records.close()


def _under(namespace: str, prefix: str) -> bool:
    return not prefix or namespace == prefix or namespace.startswith(prefix + ".")
