"""The FAISS side of memory: an exact inner-product index over record seqs, persisted atomically.

The index is derived data: the records (memory/record_store.py) are the truth. FAISS ids are
record seqs, so the index "covers" every seq up to its largest id, and catching up means adding
rows with a larger seq. The file name carries the store's id, so an index can never be applied
to a different database; it is written to a temp file and os.replace'd (no torn index after a
crash), and read with faiss.read_index (FAISS's own format; nothing is unpickled).
"""

from __future__ import annotations

import logging
import os
import threading
from pathlib import Path

import faiss
import numpy as np

log = logging.getLogger(__name__)
# One query at a time is this index's workload: OpenMP threads then cost more than they give
# (measured here: 10k vectors, 68 ms with 2 threads on a busy 2-core box vs 2 ms with 1).
faiss.omp_set_num_threads(int(os.environ.get("MEMORY_FAISS_THREADS", "1")))


class VectorIndex:
    """IndexIDMap2(IndexFlatIP): exact cosine search on normalized vectors, ids = record seqs."""

    def __init__(self, dimension: int, path: Path | None = None) -> None:
        self.dimension = dimension
        self.path = path
        self._lock = threading.RLock()
        self._index = self._empty()
        self.covered_seq = 0
        self.unsaved = 0  # vectors added since the file was last written
        if path is not None and path.exists():
            self._load(path)

    def _empty(self) -> faiss.IndexIDMap2:
        return faiss.IndexIDMap2(faiss.IndexFlatIP(self.dimension))

    def _load(self, path: Path) -> None:
        try:
            index = faiss.read_index(str(path))
        except RuntimeError as exc:  # FAISS reports a truncated or foreign file this way
            log.warning("ignoring unreadable index %s (%s); rebuilding from records", path, exc)
            return
        if index.d != self.dimension:
            log.warning(
                "index %s has dimension %d, expected %d; rebuilding", path, index.d, self.dimension
            )
            return
        if not isinstance(index, faiss.IndexIDMap2):
            log.warning("index %s is not an id-mapped index; rebuilding from records", path)
            return
        self._index = index
        ids = faiss.vector_to_array(index.id_map) if index.ntotal else np.zeros(0, np.int64)
        self.covered_seq = int(ids.max()) if ids.size else 0

    @property
    def ntotal(self) -> int:
        return int(self._index.ntotal)

    def reset(self) -> None:
        with self._lock:
            self._index = self._empty()
            self.covered_seq = 0
            self.unsaved = 0

    def add(self, seqs: np.ndarray, vectors: np.ndarray) -> None:
        """Add rows whose seq is above what the index covers; others are already in it."""
        with self._lock:
            fresh = seqs > self.covered_seq
            if not fresh.any():
                return
            seqs, vectors = seqs[fresh], vectors[fresh]
            self._index.add_with_ids(
                np.ascontiguousarray(vectors, dtype=np.float32),
                np.ascontiguousarray(seqs, dtype=np.int64),
            )
            self.covered_seq = max(self.covered_seq, int(seqs.max()))
            self.unsaved += int(seqs.size)

    def search(self, query: np.ndarray, n: int) -> list[tuple[int, float]]:
        """The n nearest (seq, cosine) pairs, best first."""
        with self._lock:
            if self._index.ntotal == 0 or n <= 0:
                return []
            scores, ids = self._index.search(
                query.reshape(1, -1).astype(np.float32), min(n, self._index.ntotal)
            )
        return [(int(i), float(s)) for i, s in zip(ids[0], scores[0], strict=True) if i >= 0]

    def should_save(self, min_batch: int = 1000, fraction: float = 0.1) -> bool:
        """Save when the unsaved tail is large, so append cost stays flat (geometric schedule)."""
        return self.path is not None and self.unsaved >= max(min_batch, fraction * self.ntotal)

    def save(self) -> None:
        """Write the index atomically: temp file in the same folder, fsync, os.replace."""
        if self.path is None:
            return
        with self._lock:
            tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
            faiss.write_index(self._index, str(tmp))
            with open(tmp, "rb") as fh:
                os.fsync(fh.fileno())
            os.replace(tmp, self.path)
            self.unsaved = 0
