"""Baselines and helpers of the reflection-store bench: a JSON-file store, the embedder's cost.

The JSON-file baseline (the `original_*` numbers): one JSON file with every record and
embedding, loaded whole and rewritten on every save, searched with a flat FAISS index; it shows
what a durable indexed store saves over the simplest design. The real embedder
(all-MiniLM-L6-v2) is timed on its own, so the store's numbers exclude it. Ours is
bench/store_scale.py.
"""

from __future__ import annotations

import json
import resource
import statistics
import time
from pathlib import Path

import numpy as np

from memory.reflections.schema import Reflection, ReflectionJudgment

DIM = 384
NAMESPACE = "reflections.default"


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


_TEMPLATE = Reflection(
    id="r0",
    task="t",
    reflection="l",
    judgment=ReflectionJudgment(needs_retry=False, confidence=0.7, reasons=["bench"]),
).model_dump(mode="json")


def record(i: int) -> dict:
    """A valid Reflection's JSON (built from a template: pydantic per row would dominate)."""
    return {
        **_TEMPLATE,
        "id": f"r{i}",
        "task": f"benchmark task number {i}",
        "reflection": f"Lesson {i}: check the inputs before acting, then verify.",
        "judgment": {**_TEMPLATE["judgment"], "needs_retry": i % 3 == 0},
    }


def pct(values: list[float], q: float) -> float:
    return float(np.percentile(np.array(values), q))


# -- the JSON-file baseline: one JSON file with every record and embedding, rewritten per save -


def original(n: int, folder: Path, vectors: np.ndarray, queries: np.ndarray) -> dict:
    """The JSON-file baseline on the same vectors: load the JSON, flat search, rewrite per save."""
    import faiss

    path = folder / "self_reflection_db.json"
    rows = [{**record(i), "embedding": v.tolist()} for i, v in enumerate(vectors[:n])]
    path.write_text(json.dumps(rows))
    del rows
    base = rss_mb()
    t0 = time.perf_counter()
    rows = json.loads(path.read_text())
    index = faiss.IndexFlatIP(vectors.shape[1])
    index.add(np.array([r["embedding"] for r in rows], dtype=np.float32))
    load = time.perf_counter() - t0
    mem = rss_mb() - base
    lat = []
    for q in queries:
        t0 = time.perf_counter()
        index.search(q.reshape(1, -1), 3)
        lat.append(time.perf_counter() - t0)
    costs = []
    for i in range(3 if n <= 20_000 else 1):
        t0 = time.perf_counter()
        rows.append({**record(n + i), "embedding": vectors[i].tolist()})
        path.write_text(json.dumps(rows))  # this design rewrites the whole file on each save
        costs.append(time.perf_counter() - t0)
    return {
        "original_load_s": load,
        "original_rss_mb": mem,
        "original_faiss_top3_p50_ms": pct(lat, 50) * 1e3,
        "original_append_ms": statistics.mean(costs) * 1e3,
        "original_disk_mb": path.stat().st_size / 2**20,
    }


def real_embeddings() -> dict:
    from core.embeddings import CachedEmbeddings, LocalEmbeddings

    emb = CachedEmbeddings(LocalEmbeddings(), name="local")
    t0 = time.perf_counter()
    emb.embed_query("warm up")
    load = time.perf_counter() - t0
    texts = [f"Task {i}: book a flight and check the dates; lesson {i}." for i in range(64)]
    t0 = time.perf_counter()
    emb.embed_documents(texts)
    batch = (time.perf_counter() - t0) / len(texts)
    single = []
    for i in range(20):
        t0 = time.perf_counter()
        emb.embed_query(f"a new query about flights number {i}")
        single.append(time.perf_counter() - t0)
    t0 = time.perf_counter()
    emb.embed_query(texts[0])
    cached = time.perf_counter() - t0
    return {
        "load_s": load,
        "batch_ms_per_text": batch * 1e3,
        "query_p50_ms": pct(single, 50) * 1e3,
        "cached_query_ms": cached * 1e3,
    }
