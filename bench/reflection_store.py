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
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.store_measures import (  # noqa: E402
    DIM,
    build_ours,
    measure_ours,
    original,
    real_embeddings,
)

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
