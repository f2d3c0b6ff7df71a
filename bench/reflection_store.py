"""Benchmark of the reflection store: append and top-3 retrieval at scale, ANN against exact.

    python bench/reflection_store.py --sizes 100000,1000000 --json
    python bench/reflection_store.py --sizes 10000 --original-max 10000   # + JSON-file baseline

Vectors are all-MiniLM-L6-v2 embeddings of real texts (bench/bench_texts.py: HotpotQA, WebArena,
AWM, then Python's documentation; computed once and cached under tmp/bench/); sizes beyond the
number of texts are filled with those embeddings plus small noise (bench/store_scale.py). Each
size is built and measured in fresh processes. Per size it prints (with --json, a JSON list of
one object per size): size, append_p50_ms (one durable save: SQLite transaction with fsync +
index add), exact_top3_p50_ms and ann_top3_p50_ms (ReflectionManager.search with an exact and
with the store's own index, same process, same held-out queries), recall_at_3 (the ANN index's
top 3 against exact search's), and more (FAISS-only latencies, build/open times, disk).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.bench_texts import CACHE, cached_embeddings, real_texts  # noqa: E402
from memory.engine.vector_index import ANN_THRESHOLD  # noqa: E402

CHILD_OPTIONS = ("noise", "ann_threshold", "reps", "appends")
KEYS = ("size", "append_p50_ms", "exact_top3_p50_ms", "ann_top3_p50_ms", "recall_at_3")


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", default="100000,1000000")
    p.add_argument("--json", action="store_true", help="print only the JSON list on stdout")
    p.add_argument("--texts", type=int, default=20_000, help="distinct real texts stored")
    p.add_argument("--queries", type=int, default=200, help="held-out query texts")
    p.add_argument("--reps", type=int, default=400, help="timed searches per index")
    p.add_argument("--appends", type=int, default=200, help="timed durable saves per size")
    p.add_argument("--noise", type=float, default=0.2, help="norm of the noise on copies")
    p.add_argument("--ann-threshold", type=int, default=ANN_THRESHOLD)
    p.add_argument("--original-max", type=int, default=0, help="run the JSON-file baseline up to N")
    p.add_argument("--embeddings", choices=["local", "hashing"], default="local")
    p.add_argument("--cache", default=str(CACHE), help="where texts and embeddings are kept")
    p.add_argument("--workdir", default=None)
    p.add_argument("--child", default=None, help=argparse.SUPPRESS)
    p.add_argument("--n", type=int, default=0, help=argparse.SUPPRESS)
    return p.parse_args(argv)


def prepare(args: argparse.Namespace, workdir: Path) -> dict:
    """Embed (or load cached) texts and queries; write them where the children read them."""
    texts, queries, sources = real_texts(args.texts, args.queries, cache=Path(args.cache))
    if args.embeddings == "local":
        from core.models import Models

        emb, name = Models().embeddings("local"), "local:all-MiniLM-L6-v2"
    else:
        from core.embeddings import HashingEmbeddings

        emb, name = HashingEmbeddings(384), "hashing-384"
    cache = Path(args.cache)
    np.save(workdir / "base.npy", cached_embeddings(texts, emb.embed_documents, name, cache))
    np.save(workdir / "queries.npy", cached_embeddings(queries, emb.embed_documents, name, cache))
    return {"texts": len(texts), "text_sources": sources, "queries": len(queries)}


def child(args: argparse.Namespace) -> dict:
    from bench.store_measures import original
    from bench.store_scale import build, measure, stored_vectors

    folder = Path(args.workdir)
    base, queries = np.load(folder / "base.npy"), np.load(folder / "queries.npy")
    store = folder / f"store-{args.n}"
    if args.child == "build":
        return build(args.n, store, base, args.noise, args.ann_threshold)
    if args.child == "measure":
        return measure(store, base, queries, args)
    return original(args.n, folder, stored_vectors(args.n, base, args.noise), queries)


def run_child(kind: str, n: int, workdir: Path, argv: list[str]) -> dict:
    cmd = [sys.executable, __file__, *argv, "--child", kind, "--n", str(n)]
    cmd += ["--workdir", str(workdir)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"bench step {kind} n={n} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def measure_size(n: int, workdir: Path, args: argparse.Namespace, argv: list[str]) -> dict:
    store = workdir / f"store-{n}"
    shutil.rmtree(store, ignore_errors=True)
    store.mkdir(parents=True)
    out = {"size": n} | run_child("build", n, workdir, argv)
    out |= run_child("measure", n, workdir, argv)
    shutil.rmtree(store)
    if n <= args.original_max:
        out |= run_child("original", n, workdir, argv)
        (workdir / "self_reflection_db.json").unlink(missing_ok=True)
        out["append_ratio_original_over_ours"] = out["original_append_ms"] / out["append_p50_ms"]
    return {k: out[k] for k in KEYS} | {k: v for k, v in out.items() if k not in KEYS}


def main(argv: list[str] | None = None) -> list[dict]:
    argv = sys.argv[1:] if argv is None else argv
    args = parse(argv)
    if args.child:
        print(json.dumps(child(args)))
        return []
    own = [f"--{k.replace('_', '-')}={getattr(args, k)}" for k in CHILD_OPTIONS]
    workdir = Path(args.workdir or tempfile.mkdtemp(prefix="reflection-bench-"))
    workdir.mkdir(parents=True, exist_ok=True)
    info = prepare(args, workdir)
    print(f"texts: {json.dumps(info)}", file=sys.stderr, flush=True)
    results = []
    for n in [int(s) for s in args.sizes.split(",") if s]:
        results.append(measure_size(n, workdir, args, own) | info)
        print(f"done: {json.dumps(results[-1])}", file=sys.stderr, flush=True)
    if args.json:
        print(json.dumps(results))
    else:
        for r in results:
            shown = {k: v for k, v in r.items() if k != "text_sources"}
            print(
                "  ".join(
                    f"{k}={v:.3g}" if isinstance(v, float) else f"{k}={v}" for k, v in shown.items()
                )
            )
    if not args.workdir:
        shutil.rmtree(workdir, ignore_errors=True)
    return results


if __name__ == "__main__":
    main()
