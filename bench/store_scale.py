"""One size of the memory-search bench, in its own process: build a store of real embeddings,
then time appends and top-3 retrieval with the ANN index and with exact search, same queries.

Stored vectors are the base MiniLM embeddings of real texts; past their number, each further
vector is a base vector plus Gaussian noise of norm about `noise` (renormalized), so a large
store keeps the geometry of real text. Retrieval is ReflectionManager.search (FAISS, ranking
fields from SQLite, scoring, the records, last-access update) with the query vector looked up,
so the embedding model's time is not in it; the FAISS part is reported beside it.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np
from langchain_core.embeddings import Embeddings

from bench.store_measures import pct, record, rss_mb
from memory.engine.backend import DB_NAME, MemoryBackend
from memory.engine.records import RecordTable
from memory.engine.rows import NewItem
from memory.engine.vector_index import VectorIndex
from memory.reflections.manager import ReflectionManager

NAMESPACE = "reflections.default"
EMBEDDER = "bench-table"
BLOCK = 20_000


class TableEmbeddings(Embeddings):
    """Vectors looked up by text: queries are known in advance, so no model runs here."""

    name = EMBEDDER

    def __init__(self, table: dict[str, np.ndarray], dimension: int) -> None:
        self.table, self.dimension = table, dimension

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self.table[t].tolist() for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self.table[text].tolist()


def _block(b: int, base: np.ndarray, noise: float) -> np.ndarray:
    """Rows b*BLOCK .. (b+1)*BLOCK of the store; noise drawn per block, so any slice of the
    store comes out the same however it is asked for."""
    idx = np.arange(b * BLOCK, (b + 1) * BLOCK)
    vecs = base[idx % len(base)].astype(np.float32)
    noisy = idx >= len(base)
    if noisy.any():
        draw = np.random.default_rng(b).standard_normal((BLOCK, base.shape[1]))
        vecs[noisy] += (noise / np.sqrt(base.shape[1]) * draw[noisy]).astype(np.float32)
        vecs[noisy] /= np.linalg.norm(vecs[noisy], axis=1, keepdims=True)
    return vecs


def stored_vectors(n: int, base: np.ndarray, noise: float, start: int = 0) -> np.ndarray:
    """Rows start..start+n of the store: base vectors first, then noisy copies of them."""
    first, last = start // BLOCK, (start + n - 1) // BLOCK
    parts = [_block(b, base, noise) for b in range(first, last + 1)] if n > 0 else []
    rows = np.concatenate(parts) if parts else np.zeros((0, base.shape[1]), np.float32)
    return rows[start - first * BLOCK : start - first * BLOCK + n]


def build(n: int, folder: Path, base: np.ndarray, noise: float, ann_threshold: int) -> dict:
    """Bulk-load n records, then open the store cold (the index is built and trained)."""
    store = RecordTable(folder / DB_NAME)
    store.bind_embedder(EMBEDDER, base.shape[1])
    t0 = time.perf_counter()
    for start in range(0, n, BLOCK):
        vecs = stored_vectors(min(BLOCK, n - start), base, noise, start)
        store.bulk_insert(
            [
                NewItem(NAMESPACE, f"r{start + i}", record(start + i), embedding=v.tobytes())
                for i, v in enumerate(vecs)
            ]
        )
    built = time.perf_counter() - t0
    store.close()
    t0 = time.perf_counter()
    backend = MemoryBackend.open(
        folder, TableEmbeddings({}, base.shape[1]), ann_threshold=ann_threshold
    )
    cold = time.perf_counter() - t0
    kind = backend.index.kind
    backend.close()
    return {"build_s": built, "cold_open_s": cold, "index_kind": kind}


def _timed_searches(manager: ReflectionManager, texts: list[str], reps: int) -> tuple[float, float]:
    """p50 of wall time and of this thread's CPU time (ms): on a shared machine the wall time
    also counts the time slices other processes took; the CPU time is the search's own cost."""
    wall, cpu = [], []
    for i in range(reps):
        t0, c0 = time.perf_counter(), time.thread_time()
        manager.search(texts[i % len(texts)], 3)
        wall.append(time.perf_counter() - t0)
        cpu.append(time.thread_time() - c0)
    return pct(wall, 50) * 1e3, pct(cpu, 50) * 1e3


def _faiss_top(index: VectorIndex, queries: np.ndarray, k: int) -> tuple[list[set], list[float]]:
    found, lat = [], []
    for q in queries:
        t0 = time.perf_counter()
        pairs = index.search(q, k)
        lat.append(time.perf_counter() - t0)
        found.append({s for s, _ in pairs})
    return found, lat


def exact_copy(index: VectorIndex) -> VectorIndex:
    """An exact index over the same vectors and seqs (what the store does below the threshold)."""
    exact = VectorIndex(index.dimension, ann_threshold=10**12)
    ids = np.sort(index.ids())
    for start in range(0, ids.size, 100_000):
        chunk = ids[start : start + 100_000]
        exact.add(chunk, index.vectors(chunk))
    return exact


def measure(folder: Path, base: np.ndarray, queries: np.ndarray, args: argparse.Namespace) -> dict:
    """Warm open, appends, then ANN vs exact retrieval and FAISS recall@3 on the same queries."""
    texts = [f"query {i}" for i in range(len(queries))]
    emb = TableEmbeddings(dict(zip(texts, queries, strict=True)), base.shape[1])
    before = rss_mb()
    t0 = time.perf_counter()
    backend = MemoryBackend.open(folder, emb, ann_threshold=args.ann_threshold)
    manager = ReflectionManager(backend=backend)
    out: dict = {"warm_open_s": time.perf_counter() - t0, "rss_mb": rss_mb() - before}
    fresh = stored_vectors(args.appends, base, 0.05, start=backend.records.max_seq() + 1)
    costs = []
    for i, vec in enumerate(fresh):
        item = NewItem(NAMESPACE, f"appended-{i}", record(i), embedding=vec.tobytes())
        t0 = time.perf_counter()
        backend.put_many([item])
        costs.append(time.perf_counter() - t0)
    out |= {"append_p50_ms": pct(costs, 50) * 1e3, "append_p99_ms": pct(costs, 99) * 1e3}
    ann = backend.index
    ann_sets, ann_lat = _faiss_top(ann, queries, 3)
    out["ann_top3_p50_ms"], out["ann_top3_cpu_p50_ms"] = _timed_searches(manager, texts, args.reps)
    exact = exact_copy(ann)
    exact_sets, exact_lat = _faiss_top(exact, queries, 3)
    backend.index = exact  # the same store and queries, searched exactly
    out["exact_top3_p50_ms"], out["exact_top3_cpu_p50_ms"] = _timed_searches(
        manager, texts, args.reps
    )
    backend.index = ann
    hits = [len(a & e) / 3 for a, e in zip(ann_sets, exact_sets, strict=True)]
    out |= {
        "recall_at_3": float(np.mean(hits)),
        "ann_faiss_p50_ms": pct(ann_lat, 50) * 1e3,
        "exact_faiss_p50_ms": pct(exact_lat, 50) * 1e3,
        "index_kind": ann.kind,
        "nlist": getattr(ann.faiss_index, "nlist", 0),
        "nprobe": getattr(ann.faiss_index, "nprobe", 0),
        "disk_mb": sum(p.stat().st_size for p in folder.iterdir() if p.is_file()) / 2**20,
        "load_average": os.getloadavg()[0],
    }
    manager.close()
    return out
