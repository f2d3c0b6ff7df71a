"""The `eval` command: `eval webarena` here; hotpotqa, miniwob and awm-miniwob in their modules.

Owns the `eval` command; other cli modules add their benchmark (e.g. miniwob) to the same table
through `eval_subparsers(subparsers)`, whatever order main.py registers them in.
"""

from __future__ import annotations

import argparse
import json
import sys
import weakref
from collections import Counter
from typing import Any

from cli.eval_awm import register_awm
from cli.eval_hotpotqa import register_hotpotqa
from cli.eval_miniwob import register_miniwob
from evals.report import format_table, write_report
from evals.webarena import (
    EVAL_TYPES,
    TaskResult,
    WebArenaConfigError,
    evaluate_offline,
    load_predictions,
    load_tasks,
    site_placeholders,
)
from evals.webarena_match import FuzzyJudge

EXIT_RUNTIME, EXIT_BAD_INPUT = 1, 2
_BENCHMARKS: weakref.WeakKeyDictionary[argparse.ArgumentParser, Any] = weakref.WeakKeyDictionary()


def eval_subparsers(subparsers: Any) -> Any:
    """The `eval` command's benchmark table, created on first use."""
    parser = subparsers.choices.get("eval")
    if parser is None:
        parser = subparsers.add_parser("eval", help="Run a benchmark and write a report.")
        _BENCHMARKS[parser] = parser.add_subparsers(
            dest="benchmark", required=True, metavar="BENCHMARK"
        )
    elif parser not in _BENCHMARKS:
        raise RuntimeError("an `eval` command exists that cli.evals.eval_subparsers did not create")
    return _BENCHMARKS[parser]


def register(subparsers: Any) -> None:
    benchmarks = eval_subparsers(subparsers)
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

    register_hotpotqa(benchmarks)
    register_miniwob(benchmarks)
    register_awm(benchmarks)


def _fail(message: str, code: int) -> int:
    print(f"error: {message}", file=sys.stderr)
    return code


def _judge(model: str | None) -> FuzzyJudge | None:
    """The fuzzy_match judge for `--model`; None (fuzzy tasks skipped) without one."""
    if not model:
        return None
    from agents.judge import LLMJudge

    # A JudgeError (no verdict) becomes EvaluationSkipped in scoring: the task is skipped.
    return LLMJudge.from_spec(model)


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


def webarena_handler(args: argparse.Namespace) -> int:
    try:
        tasks = {t["task_id"]: t for t in load_tasks(args.config, site_placeholders(args.site))}
        predictions = load_predictions(args.predictions)
    except WebArenaConfigError as exc:
        return _fail(str(exc), EXIT_BAD_INPUT)
    unknown = sorted(set(predictions) - set(tasks))
    if unknown:
        msg = f"{args.predictions}: task ids {unknown[:5]} are not in {args.config}"
        return _fail(msg, EXIT_BAD_INPUT)
    if not predictions:
        return _fail(f"{args.predictions}: no predictions to score", EXIT_BAD_INPUT)
    from core.models import ModelSpecError

    try:
        judge = _judge(args.model)
    except ModelSpecError as exc:
        return _fail(str(exc), EXIT_BAD_INPUT)
    results = [evaluate_offline(tasks[tid], predictions[tid], judge) for tid in sorted(predictions)]
    scores = {str(r.task_id): r.score for r in results}
    scored = [r.score for r in results if r.score is not None]
    mean = sum(scored) / len(scored) if scored else None
    counts = type_counts(results)
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
            "results": [
                {"task_id": r.task_id, "score": r.score, "parts": r.parts, "skipped": r.skipped}
                for r in results
            ],
        },
    )
    if args.json:
        print(json.dumps({"scores": scores, "mean": mean}))
        return 0
    _print_webarena_summary(counts, len(scored), len(results), mean)
    print(f"report: {report}")
    return 0


def _print_webarena_summary(
    counts: list[dict[str, Any]], n_scored: int, n_tasks: int, mean: float | None
) -> None:
    rows = [
        [c["eval_type"], c["tasks"], c["scored"], c["skipped"],
         "; ".join(f"{n}× {why}" for why, n in c["reasons"].items())]
        for c in counts
    ]  # fmt: skip
    print(format_table(["eval type", "tasks", "scored", "skipped", "skip reasons"], rows))
    shown = "n/a (nothing scored)" if mean is None else f"{mean:.3f}"
    print(f"\ntasks scored: {n_scored}/{n_tasks}   mean score: {shown}")
