"""What the reflection-store bench measures, each in its own process: ours, the seed's, embedding.

Ours: bulk build, cold open (index rebuilt from records), warm open (index file), durable append
per record, top-3 retrieval (FAISS + records + score + last-access update), memory and disk.
The seed's design: one JSON file with every record and embedding, rewritten on every save.
"""

from __future__ import annotations

import json
import resource
import statistics
import time
from pathlib import Path

import numpy as np
from langchain_core.embeddings import Embeddings

from memory.backend import DB_NAME, MemoryBackend
from memory.record_store import NewItem, RecordStore
from memory.reflections import ReflectionManager
from memory.schema import Reflection, ReflectionJudgment

DIM = 384
NAMESPACE = "reflections.default"


class RandomEmbeddings(Embeddings):
    """Random unit vectors: the store's cost without the model's."""

    name = f"bench-random-{DIM}"
    dimension = DIM

    def __init__(self, seed: int = 0) -> None:
        self._rng = np.random.default_rng(seed)

    def _vecs(self, n: int) -> list[list[float]]:
        v = self._rng.standard_normal((n, DIM)).astype(np.float32)
        return (v / np.linalg.norm(v, axis=1, keepdims=True)).tolist()

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self._vecs(len(texts))

    def embed_query(self, text: str) -> list[float]:
        return self._vecs(1)[0]


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


# -- ours -------------------------------------------------------------------------------------


def build_ours(n: int, folder: Path) -> dict:
    rng = np.random.default_rng(1)
    store = RecordStore(folder / DB_NAME)
    store.bind_embedder(RandomEmbeddings.name, DIM)
    t0 = time.perf_counter()
    for start in range(0, n, 20_000):
        m = min(20_000, n - start)
        vecs = rng.standard_normal((m, DIM)).astype(np.float32)
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        store.bulk_insert(
            [
                NewItem(
                    NAMESPACE,
                    f"r{start + i}",
                    record(start + i),
                    text=None,
                    embedding=vecs[i].tobytes(),
                )
                for i in range(m)
            ]
        )
    build = time.perf_counter() - t0
    store.close()
    t0 = time.perf_counter()
    backend = MemoryBackend.open(folder, RandomEmbeddings())  # no index file: rebuild + save
    cold = time.perf_counter() - t0
    backend.close()
    return {"build_s": build, "cold_open_s": cold}


def measure_ours(n: int, folder: Path, queries: int, appends: int) -> dict:
    base = rss_mb()
    t0 = time.perf_counter()
    manager = ReflectionManager(backend=MemoryBackend.open(folder, RandomEmbeddings(7)))
    warm = time.perf_counter() - t0
    mem = rss_mb() - base
    lat, faiss_lat = [], []
    for _ in range(queries):
        t0 = time.perf_counter()
        manager.search("query", 3)
        lat.append(time.perf_counter() - t0)
        q = manager.backend.embed_query("q")
        t0 = time.perf_counter()
        manager.backend.index.search(q, 3)
        faiss_lat.append(time.perf_counter() - t0)
    j = ReflectionJudgment(needs_retry=False, confidence=0.5, reasons=[])
    costs = []
    for i in range(appends):
        r = Reflection(task=f"appended task {i}", reflection="appended lesson", judgment=j)
        t0 = time.perf_counter()
        manager.save_reflection(r)
        costs.append(time.perf_counter() - t0)
    disk = sum(p.stat().st_size for p in folder.iterdir()) / 2**20
    return {
        "warm_open_s": warm,
        "rss_mb": mem,
        "search_p50_ms": pct(lat, 50) * 1e3,
        "search_p99_ms": pct(lat, 99) * 1e3,
        "faiss_p50_ms": pct(faiss_lat, 50) * 1e3,
        "append_ms": statistics.mean(costs) * 1e3,
        "append_p50_ms": pct(costs, 50) * 1e3,
        "append_p99_ms": pct(costs, 99) * 1e3,
        "disk_mb": disk,
    }


# -- the seed's design: one JSON file with every record and embedding, rewritten per save ------


def original(n: int, folder: Path, queries: int) -> dict:
    import faiss

    rng = np.random.default_rng(1)
    path = folder / "self_reflection_db.json"
    rows = []
    for start in range(0, n, 20_000):
        vecs = rng.standard_normal((min(20_000, n - start), DIM)).astype(np.float32)
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        rows += [{**record(start + i), "embedding": v.tolist()} for i, v in enumerate(vecs)]
    path.write_text(json.dumps(rows))
    del rows
    base = rss_mb()
    t0 = time.perf_counter()
    rows = json.loads(path.read_text())
    index = faiss.IndexFlatIP(DIM)
    index.add(np.array([r["embedding"] for r in rows], dtype=np.float32))
    load = time.perf_counter() - t0
    mem = rss_mb() - base
    lat = []
    for _ in range(queries):
        q = rng.standard_normal((1, DIM)).astype(np.float32)
        t0 = time.perf_counter()
        index.search(q, 3)
        lat.append(time.perf_counter() - t0)
    costs = []
    for i in range(3 if n <= 20_000 else 1):
        t0 = time.perf_counter()
        rows.append({**record(n + i), "embedding": rng.standard_normal(DIM).tolist()})
        path.write_text(json.dumps(rows))  # the seed rewrote the whole file on each save
        costs.append(time.perf_counter() - t0)
    return {
        "load_s": load,
        "rss_mb": mem,
        "search_p50_ms": pct(lat, 50) * 1e3,
        "search_p99_ms": pct(lat, 99) * 1e3,
        "append_ms": statistics.mean(costs) * 1e3,
        "disk_mb": path.stat().st_size / 2**20,
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
