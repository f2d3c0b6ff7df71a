"""Several answerers on the same questions, side by side: `eval hotpotqa --graphs closed,rag,...`
runs each graph under OUT/GRAPH (each resumable on its own) and prints one row per graph:
EM with its 95% interval, F1, and per question the model calls, prompt tokens and seconds."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, TextIO

from evals.hotpotqa.dataset import HotpotQuestion
from evals.hotpotqa.single import HotpotSettings, run_single, summary
from evals.report.stats import wilson
from evals.report.tables import format_table


def run_graphs(
    base: HotpotSettings,
    graphs: list[str],
    questions: list[HotpotQuestion],
    *,
    out: TextIO | None = None,
) -> dict[str, dict[str, Any]]:
    """Each graph's summary (evals.hotpotqa.single.summary), in the order given; every graph is
    validated before the first question runs."""
    settings = {g: replace(base, graph=g, out=base.out / g) for g in graphs}
    for s in settings.values():
        s.validate()
    return {g: summary(run_single(s, questions, out=out), questions) for g, s in settings.items()}


PAIRED_WITH = "rag"  # the one-retrieval baseline every other graph is paired with


def side_by_side(summaries: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Per graph: n, em with its interval, f1, per-question calls, tokens and seconds, and (when
    rag ran) the questions it got right that rag did not and the reverse; with the table."""
    rows: dict[str, dict[str, Any]] = {}
    base = set(summaries[PAIRED_WITH]["right"]) if PAIRED_WITH in summaries else None
    for graph, body in summaries.items():
        n = body["questions"]
        low, high = wilson(body["correct"], n) if n else (0.0, 0.0)
        rows[graph] = {
            "n": n,
            "em": round(body["em"], 3),
            "em_interval": [round(low, 2), round(high, 2)],
            "f1": round(body["f1"], 3),
            "calls": round(_per(body, "calls"), 2),
            "prompt_tokens": round(_per(body, "prompt_tokens")),
            "seconds": round(_per(body, "seconds"), 1),
        }
        if base is not None:
            right = set(body["right"])
            rows[graph]["vs_rag"] = {"won": len(right - base), "lost": len(base - right)}
    table = format_table(
        ["graph", "n", "EM [95%]", "F1", "calls/q", "prompt tokens/q", "s/q", "vs rag won/lost"],
        [
            [
                g,
                r["n"],
                f"{r['em']:.3f} [{r['em_interval'][0]:.2f}, {r['em_interval'][1]:.2f}]",
                f"{r['f1']:.3f}",
                r["calls"],
                r["prompt_tokens"],
                r["seconds"],
                f"{r['vs_rag']['won']}/{r['vs_rag']['lost']}" if "vs_rag" in r else "",
            ]
            for g, r in rows.items()
        ],
    )
    return {"by_graph": rows, "table": table}


def _per(body: dict[str, Any], key: str) -> float:
    """`key`'s total in a summary, per question answered."""
    return body[key] / body["questions"] if body["questions"] else 0.0
