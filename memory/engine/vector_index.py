"""The FAISS side of memory: exact search while small, IVF trained on the stored vectors when large.

FAISS ids are record seqs, so the index "covers" every seq up to its largest id and catching up
means adding rows with a larger seq. Below `ann_threshold` vectors the index is exact
(IndexIDMap2 over IndexFlatIP); at the threshold it becomes an IVF index (IndexIVFFlat, inner
product) trained on the vectors it holds, and it is retrained whenever it has grown
`RETRAIN_GROWTH` times past the size it was trained at, so its lists stay short as the store
grows. IVF search scans `nprobe` of the lists nearest the query; bench/reflection_store.py
measures its recall against exact search on real MiniLM embeddings. Persistence and checksums
are memory/engine/index_file.py's.
"""

from __future__ import annotations

import math
import os
import threading

import faiss
import numpy as np

# One query at a time is this index's workload: OpenMP threads then cost more than they give
# (measured here: 10k vectors, 68 ms with 2 threads on a busy 2-core box vs 2 ms with 1).
faiss.omp_set_num_threads(int(os.environ.get("MEMORY_FAISS_THREADS", "1")))

# Measured on MiniLM vectors of real texts (bench/reflection_store.py, 2 busy cores): exact
# top-3 costs ~11 ms at 30k, ~30 ms at 100k and 130-250 ms at 1M; IVF with nprobe 16 costs
# ~1 ms at 100k and ~3 ms at 1M with recall@3 0.965 / 0.975 against exact (nprobe 24: 0.97 /
# 0.99 for 1.5x the time). Below 20k exact search is cheap and exact.
ANN_THRESHOLD = 20_000
NPROBE = 16
RETRAIN_GROWTH = 4  # nlist ~ sqrt(n): a 4x larger store gets 2x the lists
TRAIN_PER_LIST = 40  # FAISS warns below 39 training points per centroid


def nlist_for(n: int) -> int:
    return max(64, min(8192, int(math.sqrt(n))))


class VectorIndex:
    """Cosine search on normalized vectors keyed by record seq; exact or IVF by size."""

    def __init__(
        self, dimension: int, ann_threshold: int = ANN_THRESHOLD, nprobe: int = NPROBE
    ) -> None:
        self.dimension = dimension
        self.ann_threshold = ann_threshold
        self.nprobe = nprobe
        self._lock = threading.RLock()
        self._index: faiss.Index = self._exact()
        self.covered_seq = 0
        self.unsaved = 0  # vectors added since the index was last written

    def _exact(self) -> faiss.Index:
        return faiss.IndexIDMap2(faiss.IndexFlatIP(self.dimension))

    @property
    def faiss_index(self) -> faiss.Index:
        return self._index

    @property
    def kind(self) -> str:
        return "ivf" if isinstance(self._index, faiss.IndexIVF) else "exact"

    @property
    def ntotal(self) -> int:
        return int(self._index.ntotal)

    def adopt(self, index: faiss.Index) -> bool:
        """Use an index read from disk; False if it is not one this class builds."""
        if index.metric_type != faiss.METRIC_INNER_PRODUCT:
            return False
        if isinstance(index, faiss.IndexIDMap2):
            if not isinstance(faiss.downcast_index(index.index), faiss.IndexFlatIP):
                return False
        elif not isinstance(index, faiss.IndexIVFFlat):
            return False
        with self._lock:
            self._index = index
            if isinstance(index, faiss.IndexIVF):
                index.nprobe = self.nprobe
            ids = self.ids()
            self.covered_seq = int(ids.max()) if ids.size else 0
            self.unsaved = 0
        return True

    def reset(self) -> None:
        with self._lock:
            self._index = self._exact()
            self.covered_seq = 0
            self.unsaved = 0

    def ids(self) -> np.ndarray:
        """Every seq in the index (any order)."""
        with self._lock:
            index = self._index
            if isinstance(index, faiss.IndexIDMap2):
                return faiss.vector_to_array(index.id_map).astype(np.int64)
            assert isinstance(index, faiss.IndexIVF) and index.invlists is not None
            lists = index.invlists
            parts = [
                faiss.rev_swig_ptr(lists.get_ids(i), lists.list_size(i)).copy()
                for i in range(index.nlist)
                if lists.list_size(i)
            ]
        return np.concatenate(parts) if parts else np.zeros(0, np.int64)

    def vector(self, seq: int) -> np.ndarray:
        """The stored vector of this seq (FAISS raises RuntimeError if it is absent)."""
        with self._lock:
            return np.asarray(self._index.reconstruct(int(seq)), dtype=np.float32)

    def vectors(self, seqs: np.ndarray) -> np.ndarray:
        """The stored vectors of these seqs, in their order."""
        with self._lock:
            found = self._index.reconstruct_batch(np.ascontiguousarray(seqs, dtype=np.int64))
        return np.asarray(found, dtype=np.float32)

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
            if self._should_retrain():
                self._retrain()

    def remove(self, seqs: np.ndarray) -> int:
        """Drop these seqs' vectors (records deleted or replaced); returns how many were in."""
        if not seqs.size:
            return 0
        with self._lock:
            removed = int(self._index.remove_ids(faiss.IDSelectorArray(seqs.astype(np.int64))))
            self.unsaved += removed
        return removed

    def build(self, seqs: np.ndarray, vectors: np.ndarray) -> None:
        """Replace the contents with these rows, in the kind their number calls for (one
        training at the final size instead of one per threshold crossed while adding)."""
        with self._lock:
            if seqs.size < self.ann_threshold:
                self.reset()
                self.add(seqs, vectors)
            else:
                self._index = self._train_ivf(seqs, vectors)
                self.covered_seq = int(seqs.max())
            self.unsaved = max(int(seqs.size), 1)

    def _should_retrain(self) -> bool:
        n = self.ntotal
        if not isinstance(self._index, faiss.IndexIVF):
            return n >= self.ann_threshold
        return nlist_for(n) >= 2 * self._index.nlist  # i.e. the store grew RETRAIN_GROWTH times

    def _retrain(self) -> None:
        """Rebuild as IVF with lists for the current size, trained on the vectors held."""
        ids = self.ids()
        vectors = self.vectors(ids)
        self._index = self._train_ivf(ids, vectors)
        self.unsaved = max(self.unsaved, int(ids.size))  # the file holds the old layout

    def _train_ivf(self, ids: np.ndarray, vectors: np.ndarray) -> faiss.IndexIVFFlat:
        nlist = nlist_for(ids.size)
        ivf = faiss.IndexIVFFlat(
            faiss.IndexFlatIP(self.dimension), self.dimension, nlist, faiss.METRIC_INNER_PRODUCT
        )
        ivf.cp.niter = 10  # k-means beyond 10 rounds barely moves recall, and costs seconds
        sample = np.random.default_rng(0).permutation(ids.size)[: nlist * TRAIN_PER_LIST]
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        threads = faiss.omp_get_max_threads()
        faiss.omp_set_num_threads(os.cpu_count() or 1)  # training is one big batch job
        try:
            ivf.train(vectors[np.sort(sample)])
            # a hashtable direct map: vectors and removal by seq (missing from FAISS's stubs)
            ivf.set_direct_map_type(faiss.DirectMap.Hashtable)  # type: ignore[attr-defined]
            ivf.add_with_ids(vectors, np.ascontiguousarray(ids, dtype=np.int64))
        finally:
            faiss.omp_set_num_threads(threads)
        ivf.nprobe = self.nprobe
        return ivf

    def search(
        self, query: np.ndarray, n: int, exhaustive: bool = False
    ) -> list[tuple[int, float]]:
        """The n nearest (seq, cosine) pairs, best first; `exhaustive` scans every IVF list."""
        with self._lock:
            if self._index.ntotal == 0 or n <= 0:
                return []
            params = None
            if exhaustive and isinstance(self._index, faiss.IndexIVF):
                params = faiss.SearchParametersIVF()
                params.nprobe = self._index.nlist
            scores, ids = self._index.search(
                query.reshape(1, -1).astype(np.float32), min(n, self.ntotal), params=params
            )
        return [(int(i), float(s)) for i, s in zip(ids[0], scores[0], strict=True) if i >= 0]

    def should_save(self, min_batch: int = 1000, fraction: float = 0.1) -> bool:
        """Save when the unsaved tail is large, so append cost stays flat (geometric schedule)."""
        return self.unsaved >= max(min_batch, fraction * self.ntotal)
