"""Where an arm of `eval multihop` loses its questions, read from the run's records: per dataset,
its wrong answers that came with every gold paragraph read (reading lost them, not finding),
those that name one of the question's own gold pages (a link on the way, not the end of the
chain), and the calls spent on chains its graph ended unsettled (the last reading, or "not
found") beside the calls of the rest.

    python -m bench.multihop_misses docs/results/multihop-dev [--arm reflective]

The questions are the dev part's, as many of each dataset as every arm of OUT has answered.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any

from agents.research.hop import LAST, UNANSWERED
from evals.common.results_log import ResultsLog
from evals.hotpotqa.metrics import normalize_answer
from evals.hotpotqa.pooled import corpus_sources, pooled_passages
from evals.multihop.dataset import DATASETS, MultihopQuestion, files, gold_sources, load_multihop
from evals.multihop.summary import recall
from evals.report.tables import format_table

DATA = "tests/data/multihop"
UNSETTLED = (LAST, UNANSWERED)  # how a chain ends without an answer it settled


def _records(out: Path) -> dict[str, dict[str, dict[str, Any]]]:
    """Each arm's records by id: the arms OUT/summary.json names (a records folder may keep
    other designs' folders beside them), else every folder with records."""
    summary = out / "summary.json"
    arms = json.loads(summary.read_text(encoding="utf-8"))["arms"] if summary.exists() else None
    logs = sorted(out.glob("*/results.jsonl"))
    chosen = [log for log in logs if arms is None or log.parent.name in arms]
    return {log.parent.name: ResultsLog(log).records_by_key() for log in chosen}


def gold_titles(q: MultihopQuestion) -> set[str]:
    """The question's gold pages' titles, with and without a "(1994 film)" tail."""
    titles = [q.question.paragraphs[i].title for i in q.question.gold]
    untailed = [re.sub(r"\s*\(.*\)$", "", t) for t in titles]
    return {normalize_answer(t) for t in titles + untailed}


def misses(rows: list[tuple[MultihopQuestion, dict[str, Any], list[str]]]) -> dict[str, Any]:
    """The numbers of one arm on `rows`: (question, its record, its gold sources)."""
    wrong = [(q, r, g) for q, r, g in rows if not r["em"]]
    unsettled = [r for _, r, _ in rows if (r.get("path") or {}).get("how") in UNSETTLED]
    settled = [r for _, r, _ in rows if (r.get("path") or {}).get("how") not in UNSETTLED]

    def calls(rs: list[dict[str, Any]]) -> float:
        return round(sum(r["calls"] for r in rs) / len(rs), 2) if rs else 0.0

    return {
        "n": len(rows),
        "wrong": len(wrong),
        "gold_read_wrong": sum(recall(r, g) == 1.0 for _, r, g in wrong),
        "gold_page_named": sum(
            normalize_answer(r["answer"] or "") in gold_titles(q) for q, r, _ in wrong
        ),
        "unsettled": [len(unsettled), sum(bool(r["em"]) for r in unsettled), calls(unsettled)],
        "settled": [len(settled), sum(bool(r["em"]) for r in settled), calls(settled)],
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out", type=Path, help="an `eval multihop --out` folder")
    p.add_argument("--arm", default="reflective", help="the arm to read (default reflective)")
    p.add_argument("--data", default=DATA, help=f"the multihop data folder (default {DATA})")
    args = p.parse_args(argv)
    by_arm = _records(args.out)
    if args.arm not in by_arm:
        p.error(f"{args.out} has no records of arm {args.arm!r} (it has: {', '.join(by_arm)})")
    sources = corpus_sources(pooled_passages(*files(args.data)))
    answered = [q for q in load_multihop(args.data) if all(q.id in r for r in by_arm.values())]
    table = []
    for name in (*DATASETS, "all"):
        chosen = [q for q in answered if name in (q.dataset, "all")]
        rows = [(q, by_arm[args.arm][q.id], gold_sources(q.question, sources)) for q in chosen]
        m = misses(rows)
        table.append(
            [name, m["n"], m["wrong"], m["gold_read_wrong"], m["gold_page_named"]]
            + ["{} ({} right), {} calls".format(*m[k]) for k in ("unsettled", "settled")]
        )
    head = ["dataset", "n", "wrong", "gold read, wrong", "wrong: a gold page's title"]
    print(format_table([*head, "ended unsettled", "the rest"], table))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
