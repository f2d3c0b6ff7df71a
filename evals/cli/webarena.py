"""`eval webarena`: score WebArena predictions offline, with a table per evaluator type and a
JSON report (fuzzy_match needs --model as its LLM judge, else those tasks are skipped)."""

from __future__ import annotations

import argparse
import json
from collections import Counter
from typing import Any

from cli.errors import UsageError
from evals.report.json_report import write_report
from evals.report.tables import format_table
from evals.webarena.evaluator import (
    EVAL_TYPES,
    TaskResult,
    evaluate_offline,
    load_predictions,
    load_tasks,
    site_placeholders,
)
from evals.webarena.match import FuzzyJudge


def register_webarena(benchmarks: Any) -> None:
    web = benchmarks.add_parser("webarena", help="Score WebArena predictions offline.")
    web.add_argument("--config", required=True, help="WebArena task configs (e.g. test.raw.json).")
    web.add_argument("--predictions", required=True, help='JSON {task_id: {"answer", "url"}}.')
    web.add_argument("--model", default=None, help="LLM judge for fuzzy_match (default: skip).")
    web.add_argument(
        "--site",
        action="append",
        default=[],
        metavar="NAME=URL",
        help="Replace __NAME__ placeholders in the configs, e.g. SHOPPING=http://…",
    )
    web.add_argument("--json", action="store_true", help="Print {scores, mean} as JSON.")
    web.set_defaults(func=webarena_handler)


def _judge(model: str | None) -> FuzzyJudge | None:
    """The fuzzy_match judge for `--model`; None (fuzzy tasks skipped) without one."""
    if not model:
        return None
    from evals.webarena.answer_judge import AnswerJudge

    # A JudgeError (no verdict) becomes EvaluationSkipped in scoring: the task is skipped.
    return AnswerJudge.from_spec(model)


def type_counts(results: list[TaskResult]) -> list[dict[str, Any]]:
    """Per eval type: tasks scored, tasks skipped, and each skip reason with its count."""
    rows = []
    for eval_type in EVAL_TYPES:
        relevant = [r for r in results if eval_type in r.eval_types]
        reasons = Counter(r.skipped[eval_type] for r in relevant if eval_type in r.skipped)
        rows.append(
            {
                "eval_type": eval_type,
                "tasks": len(relevant),
                "scored": len(relevant) - sum(reasons.values()),
                "skipped": sum(reasons.values()),
                "reasons": dict(reasons),
            }
        )
    return rows


def _score(args: argparse.Namespace) -> list[TaskResult]:
    """Every prediction scored against its task; bad files and unknown ids are bad input."""
    tasks = {t["task_id"]: t for t in load_tasks(args.config, site_placeholders(args.site))}
    predictions = load_predictions(args.predictions)
    unknown = sorted(set(predictions) - set(tasks))
    if unknown:
        raise UsageError(f"{args.predictions}: task ids {unknown[:5]} are not in {args.config}")
    if not predictions:
        raise UsageError(f"{args.predictions}: no predictions to score")
    judge = _judge(args.model)
    return [evaluate_offline(tasks[tid], predictions[tid], judge) for tid in sorted(predictions)]


def webarena_handler(args: argparse.Namespace) -> int:
    results = _score(args)
    scores = {str(r.task_id): r.score for r in results}
    scored = [r.score for r in results if r.score is not None]
    mean = sum(scored) / len(scored) if scored else None
    counts = type_counts(results)
    details = [
        {"task_id": r.task_id, "score": r.score, "parts": r.parts, "skipped": r.skipped}
        for r in results
    ]
    report = write_report(
        args.home,
        "webarena",
        {
            "config": str(args.config),
            "predictions": str(args.predictions),
            "judge_model": args.model,
            "scores": scores,
            "mean": mean,
            "tasks_scored": len(scored),
            "tasks": len(results),
            "eval_types": counts,
            "results": details,
        },
    )
    if args.json:
        print(json.dumps({"scores": scores, "mean": mean}))
        return 0
    _print_summary(counts, len(scored), len(results), mean)
    print(f"report: {report}")
    return 0


def _print_summary(
    counts: list[dict[str, Any]], n_scored: int, n_tasks: int, mean: float | None
) -> None:
    rows = [
        [
            c["eval_type"],
            c["tasks"],
            c["scored"],
            c["skipped"],
            "; ".join(f"{n}× {why}" for why, n in c["reasons"].items()),
        ]
        for c in counts
    ]
    print(format_table(["eval type", "tasks", "scored", "skipped", "skip reasons"], rows))
    shown = "n/a (nothing scored)" if mean is None else f"{mean:.3f}"
    print(f"\ntasks scored: {n_scored}/{n_tasks}   mean score: {shown}")
