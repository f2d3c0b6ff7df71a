"""Which retriever finds a multi-hop question's evidence in the pooled corpus: BM25 (the corpus
tool's), MiniLM dense, or both by reciprocal rank fusion, side by side in one run, no chat model.

    python -m bench.multihop_retrieval [--part dev] [--limit 60] [--k 5] [--json]

Two kinds of query, each asked of every retriever over the same 6,377 passages:
- the question itself (what a run's first search sends): the share of questions whose every gold
  paragraph is in the top k, and the mean share of gold paragraphs found;
- each link of the question's gold chain, written as a run's hop would search it once the link
  before is known: MuSiQue's sub-questions with the earlier answers put in for `#1`, `#2`;
  2Wiki's evidence triples as "subject relation" (the bridge named). A link counts as found when
  its gold paragraph is in the top k (MuSiQue names it; for 2Wiki, the paragraph titled with the
  triple's subject). HotpotQA has no written chain.
Prints one row per retriever and query kind; the fusion is RRF (score 1/(60 + rank)) over each
retriever's top 50.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from agents.tools.bm25 import BM25, tokenize
from evals.hotpotqa.dataset import HotpotQuestion
from evals.hotpotqa.pooled import pooled_passages
from evals.multihop.dataset import files, load_multihop
from evals.report.tables import format_table

DATA = "tests/data/multihop"
RRF_K, POOL = 60, 50
Ranker = Callable[[str, int], list[int]]


def bm25_ranker(items: Sequence[tuple[str, str]]) -> Ranker:
    index = BM25([tokenize(f"{title}\n{text}") for title, text in items])
    return lambda query, k: [i for i, _ in index.top(tokenize(query), k)]


def dense_ranker(items: Sequence[tuple[str, str]]) -> Ranker:
    from core.embeddings import LocalEmbeddings

    model = LocalEmbeddings()
    vectors = np.asarray(model.embed_documents([f"{t}\n{x}" for t, x in items]), dtype=np.float32)

    def rank(query: str, k: int) -> list[int]:
        scores = vectors @ np.asarray(model.embed_query(query), dtype=np.float32)
        return [int(i) for i in np.argsort(-scores)[:k]]

    return rank


def fused(*rankers: Ranker) -> Ranker:
    def rank(query: str, k: int) -> list[int]:
        score: dict[int, float] = {}
        for ranker in rankers:
            for r, i in enumerate(ranker(query, POOL)):
                score[i] = score.get(i, 0.0) + 1.0 / (RRF_K + r + 1)
        return [i for i, _ in sorted(score.items(), key=lambda kv: -kv[1])[:k]]

    return rank


def chain_links(q: HotpotQuestion, raw: dict[str, Any]) -> list[tuple[str, int]]:
    """(query, index of its gold paragraph in the question's own paragraphs) per written link."""
    titles = [p.title for p in q.paragraphs]
    if "question_decomposition" in raw:  # MuSiQue: sub-questions, #k for earlier answers
        links: list[tuple[str, int]] = []
        answers: list[str] = []
        for step in raw["question_decomposition"]:
            text = step["question"]
            for n, answer in enumerate(answers, 1):
                text = text.replace(f"#{n}", answer)
            links.append((text, int(step["paragraph_support_idx"])))
            answers.append(step["answer"])
        return links
    out = []
    for subject, relation, _ in raw.get("evidences") or []:  # 2Wiki: the bridge named
        if subject in titles:
            out.append((f"{subject} {relation}", titles.index(subject)))
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--part", default="dev", choices=("dev", "tune"))
    p.add_argument("--limit", type=int, default=60, help="questions per dataset")
    p.add_argument("--k", type=int, default=5)
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    items = pooled_passages(*files(DATA))
    where = {item: n for n, item in enumerate(items)}
    questions = load_multihop(DATA, part=args.part, limits=_limits(args.limit))
    raw = _raw_records()
    started = time.perf_counter()
    bm25 = bm25_ranker(items)
    dense = dense_ranker(items)
    indexed = time.perf_counter() - started
    rankers = {"bm25": bm25, "dense": dense, "rrf": fused(bm25, dense)}
    rows = []
    for name, rank in rankers.items():
        rows += _measure(name, rank, questions, raw, where, args.k)
    if args.json:
        print(json.dumps({"k": args.k, "rows": rows, "index_seconds": round(indexed, 1)}))
        return 0
    print(
        format_table(
            ["retriever", "queries", "dataset", "n", f"all gold in top {args.k}", "found"],
            [
                [r["retriever"], r["queries"], r["dataset"], r["n"], r["all"], r["found"]]
                for r in rows
            ],
        )
    )
    print(f"\nindexes built in {indexed:.1f} s (MiniLM embeds every passage once)")
    return 0


def _measure(name, rank, questions, raw, where, k) -> list[dict[str, Any]]:
    by: dict[tuple[str, str], list[float]] = {}
    for mq in questions:
        q = mq.question
        gold = {where[(q.paragraphs[i].title, q.paragraphs[i].text)] for i in q.gold}
        top = set(rank(q.question, k))
        by.setdefault(("question", mq.dataset), []).append(len(gold & top) / len(gold))
        for query, idx in chain_links(q, raw[q.id]):
            target = where[(q.paragraphs[idx].title, q.paragraphs[idx].text)]
            by.setdefault(("chain link", mq.dataset), []).append(float(target in rank(query, k)))
    return [
        {
            "retriever": name,
            "queries": kind,
            "dataset": dataset,
            "n": len(found),
            "all": round(sum(f == 1.0 for f in found) / len(found), 3),
            "found": round(sum(found) / len(found), 3),
        }
        for (kind, dataset), found in by.items()
    ]


def _limits(limit: int) -> dict[str, int]:
    return {"hotpotqa": limit, "2wiki": limit, "musique": limit}


def _raw_records() -> dict[str, dict[str, Any]]:
    out = {}
    for path in files(DATA):
        for rec in json.loads(path.read_text(encoding="utf-8")):
            out[str(rec.get("id") or rec["_id"])] = rec
    return out


if __name__ == "__main__":
    raise SystemExit(main())
