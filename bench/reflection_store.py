"""Benchmark of the reflection store (SQLite WAL + FAISS) against the seed's whole-JSON rewrite.

    python bench/reflection_store.py                      # 10k, 100k, 1M (a few minutes)
    python bench/reflection_store.py --sizes 10000,100000 --original-max 10000

Vectors are random unit vectors of dimension 384 (MiniLM's) so scale is cheap to build; the real
embedder is timed on its own. Each measurement runs in a fresh subprocess so memory is its own.
Per size: bulk build, cold open (index rebuilt from records), warm open (index file), durable
append cost per record on top of the built store, top-3 retrieval latency (FAISS + records +
score + last-access update) p50/p99, resident memory, disk; the original design where it
finishes (--original-max), and the ratios original/ours.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from langchain_core.embeddings import Embeddings

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from memory.backend import DB_NAME, MemoryBackend  # noqa: E402
from memory.record_store import NewItem, RecordStore  # noqa: E402
from memory.reflections import ReflectionManager  # noqa: E402
from memory.schema import Reflection, ReflectionJudgment  # noqa: E402

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


# -- driver -----------------------------------------------------------------------------------


def child(args: argparse.Namespace) -> None:
    """One measurement in this (fresh) process; prints one JSON line."""
    folder, n = Path(args.workdir), args.n
    if args.child == "build":
        out = build_ours(n, folder)
    elif args.child == "measure":
        out = measure_ours(n, folder, args.queries, args.appends)
    elif args.child == "original":
        out = original(n, folder, args.queries)
    else:
        out = real_embeddings()
    print(json.dumps(out))


def run_child(kind: str, n: int, folder: Path, args: argparse.Namespace) -> dict:
    cmd = [
        sys.executable,
        __file__,
        "--child",
        kind,
        "--n",
        str(n),
        "--workdir",
        str(folder),
        "--queries",
        str(args.queries),
        "--appends",
        str(args.appends),
    ]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"bench step {kind} n={n} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def fmt(v: float | None, unit: str = "") -> str:
    if v is None:
        return "—"
    return f"{v:,.3f}{unit}" if v < 10 else f"{v:,.1f}{unit}"


def table(results: dict[int, dict], emb: dict | None) -> str:
    sizes = sorted(results)
    rows = [
        ("bulk build (s)", "ours", "build_s"),
        ("open, cold: index rebuilt (s)", "ours", "cold_open_s"),
        ("open, warm: index file (s)", "ours", "warm_open_s"),
        ("append per record, mean (ms)", "ours", "append_ms"),
        ("append p50 (ms)", "ours", "append_p50_ms"),
        ("append p99 (ms)", "ours", "append_p99_ms"),
        ("top-3 retrieval p50 (ms)", "ours", "search_p50_ms"),
        ("top-3 retrieval p99 (ms)", "ours", "search_p99_ms"),
        ("  of which FAISS p50 (ms)", "ours", "faiss_p50_ms"),
        ("memory after open (MB)", "ours", "rss_mb"),
        ("disk (MB)", "ours", "disk_mb"),
        ("ORIGINAL append per record (ms)", "orig", "append_ms"),
        ("ORIGINAL load (s)", "orig", "load_s"),
        ("ORIGINAL top-3 p50 (ms)", "orig", "search_p50_ms"),
        ("ORIGINAL memory (MB)", "orig", "rss_mb"),
        ("ORIGINAL disk (MB)", "orig", "disk_mb"),
    ]
    ratios = [
        ("ratio append original/ours", "append_ms", "append_ms"),
        ("ratio open original-load/ours-warm", "load_s", "warm_open_s"),
        ("ratio memory original/ours", "rss_mb", "rss_mb"),
    ]
    head = f"{'':36}" + "".join(f"{n:>14,}" for n in sizes)
    lines = [head, "-" * len(head)]
    for label, side, key in rows:
        lines.append(
            f"{label:36}" + "".join(f"{fmt(results[n][side].get(key)):>14}" for n in sizes)
        )
    for label, okey, ukey in ratios:
        cells = []
        for n in sizes:
            o, u = results[n]["orig"].get(okey), results[n]["ours"].get(ukey)
            cells.append(f"{fmt(o / u) + 'x' if o and u else '—':>14}")
        lines.append(f"{label:36}" + "".join(cells))
    if emb:
        lines.append("")
        lines.append(
            f"real embeddings (all-MiniLM-L6-v2, CPU): load {emb['load_s']:.2f} s, "
            f"batch {emb['batch_ms_per_text']:.2f} ms/text, one query "
            f"{emb['query_p50_ms']:.2f} ms p50, "
            f"cached query {emb['cached_query_ms']:.3f} ms"
        )
    return "\n".join(lines)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", default="10000,100000,1000000")
    p.add_argument(
        "--original-max",
        type=int,
        default=100_000,
        help="largest size at which the whole-JSON original is run",
    )
    p.add_argument("--queries", type=int, default=200)
    p.add_argument("--appends", type=int, default=200)
    p.add_argument("--no-real-embeddings", action="store_true")
    p.add_argument("--workdir", default=None)
    p.add_argument("--child", default=None, help=argparse.SUPPRESS)
    p.add_argument("--n", type=int, default=0, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        return child(args)
    base = Path(args.workdir or tempfile.mkdtemp(prefix="reflection-bench-"))
    results: dict[int, dict] = {}
    for n in [int(s) for s in args.sizes.split(",") if s]:
        folder = base / f"ours-{n}"
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        ours = run_child("build", n, folder, args) | run_child("measure", n, folder, args)
        orig: dict = {}
        if n <= args.original_max:
            ofolder = base / f"orig-{n}"
            ofolder.mkdir(exist_ok=True)
            orig = run_child("original", n, ofolder, args)
            shutil.rmtree(ofolder)
        shutil.rmtree(folder)
        results[n] = {"ours": ours, "orig": orig}
        print(f"done n={n}: {json.dumps(results[n])}", file=sys.stderr, flush=True)
    emb = None if args.no_real_embeddings else run_child("embeddings", 0, base, args)
    print(table(results, emb))
    print(
        f"\ncores={os.cpu_count()} dim={DIM} queries={args.queries} appends={args.appends} "
        f"load average at end={os.getloadavg()[0]:.1f} (append = one durable SQLite "
        "transaction with fsync + FAISS add; retrieval includes the last-access update)"
    )


if __name__ == "__main__":
    main()
