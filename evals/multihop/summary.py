"""The multihop benchmark's numbers, per dataset and overall, on the questions every arm answered:
EM with its 95% interval, F1, calls, tokens and seconds (mean and 95th percentile), evidence
recall (the share of a question's gold paragraphs among the passages its prompts showed), and
per arm the questions it got right that rag did not and the reverse. "gold read, wrong" counts the
questions whose every gold paragraph the run read and still answered wrong: reading, not
finding, lost them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from evals.report.stats import p95, wilson
from evals.report.tables import format_table

PAIRED_WITH = "rag"  # the one-retrieval baseline every other arm is paired with


def recall(record: dict[str, Any], gold: Sequence[str]) -> float:
    """The share of `gold` (sources) among the sources the record says its run read."""
    if not gold:
        return 0.0
    read = set(record.get("read") or ())
    return sum(g in read for g in gold) / len(gold)


def arm_numbers(rows: list[dict[str, Any]], golds: dict[str, list[str]]) -> dict[str, Any]:
    """One arm's numbers over `rows` (its records of the same questions as every other arm)."""
    n = len(rows)
    if not n:
        return {"n": 0}
    right = sum(bool(r["em"]) for r in rows)
    low, high = wilson(right, n)
    recalls = [recall(r, golds.get(r["id"], [])) for r in rows]

    def mean(key: str) -> float:
        return sum(float(r.get(key) or 0) for r in rows) / n

    return {
        "n": n,
        "em": round(right / n, 3),
        "em_interval": [round(low, 2), round(high, 2)],
        "f1": round(mean("f1"), 3),
        "calls": round(mean("calls"), 2),
        "calls_p95": p95([float(r["calls"]) for r in rows]),
        "prompt_tokens": round(mean("prompt_tokens")),
        "output_tokens": round(mean("output_tokens")),
        "seconds": round(mean("seconds"), 1),
        "seconds_p95": round(p95([float(r["seconds"]) for r in rows]), 1),
        "recall": round(sum(recalls) / n, 3),
        # every gold paragraph was shown and the answer was still wrong: reading, not finding
        "read_all_gold_wrong": sum(
            x == 1.0 and not r["em"] for x, r in zip(recalls, rows, strict=True)
        ),
        "errors": sum(r.get("error") is not None for r in rows),
    }


def common_ids(by_arm: dict[str, dict[str, dict[str, Any]]], ids: Sequence[str]) -> list[str]:
    """The ids, in order, that every arm has a record of."""
    return [i for i in ids if all(i in records for records in by_arm.values())]


def summarize(
    by_arm: dict[str, dict[str, dict[str, Any]]],
    datasets: dict[str, list[str]],
    golds: dict[str, list[str]],
) -> dict[str, Any]:
    """`by_arm`: each arm's records by question id; `datasets`: each dataset's ids in order.
    Per dataset and overall (`all`), each arm's numbers on the questions all arms answered."""
    groups = {**datasets, "all": [i for ids in datasets.values() for i in ids]}
    out: dict[str, Any] = {}
    for group, ids in groups.items():
        shared = common_ids(by_arm, ids)
        numbers = {
            arm: arm_numbers([records[i] for i in shared], golds) for arm, records in by_arm.items()
        }
        if PAIRED_WITH in by_arm:
            base = {i for i in shared if by_arm[PAIRED_WITH][i]["em"]}
            for arm, records in by_arm.items():
                mine = {i for i in shared if records[i]["em"]}
                numbers[arm]["vs_rag"] = {"won": len(mine - base), "lost": len(base - mine)}
        out[group] = numbers
    return out


def table(summary: dict[str, Any]) -> str:
    """One row per dataset and arm."""
    rows = []
    for group, arms in summary.items():
        for arm, r in arms.items():
            if not r.get("n"):
                continue
            paired = r.get("vs_rag")
            rows.append(
                [
                    group,
                    arm,
                    r["n"],
                    f"{r['em']:.3f} [{r['em_interval'][0]:.2f}, {r['em_interval'][1]:.2f}]",
                    f"{r['f1']:.3f}",
                    f"{r['recall']:.2f}",
                    r["read_all_gold_wrong"],
                    f"{r['calls']} / {r['calls_p95']:g}",
                    r["prompt_tokens"],
                    f"{r['seconds']} / {r['seconds_p95']}",
                    f"{paired['won']}/{paired['lost']}" if paired and arm != PAIRED_WITH else "",
                ]
            )
    return format_table(
        [
            "dataset",
            "arm",
            "n",
            "EM [95%]",
            "F1",
            "recall",
            "gold read, wrong",
            "calls/q mean / p95",
            "prompt tokens/q",
            "s/q mean / p95",
            "vs rag won/lost",
        ],
        rows,
    )
