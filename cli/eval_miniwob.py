"""`eval miniwob`: the web agent on MiniWoB++ tasks served locally; a table and a JSON report."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Any

EXIT_RUNTIME, EXIT_BAD_INPUT = 1, 2


def register_miniwob(benchmarks: Any) -> None:
    """Add `miniwob` to the `eval` command's benchmarks (cli.evals.eval_subparsers).

    Idempotent: a second call (or a `miniwob` someone registered first) leaves it as it is.
    """
    if "miniwob" in benchmarks.choices:
        return
    p = benchmarks.add_parser("miniwob", help="Run the web agent on MiniWoB++ tasks.")
    p.add_argument("--tasks", required=True, help="Comma-separated task names, e.g. click-button")
    p.add_argument("--episodes", type=int, default=1, help="Episodes per task (seeds S, S+1, …).")
    p.add_argument("--seed", type=int, default=0, help="First seed.")
    p.add_argument(
        "--workflows", choices=("on", "off"), default="on", help="Workflows (AWM) in the prompt."
    )
    p.add_argument("--max-steps", type=int, default=30, help="Actions per episode (default 30).")
    p.add_argument("--model", default=None, help="Model spec for the agent (default: local).")
    p.add_argument(
        "--no-record", action="store_true", help="Do not record trajectories into memory."
    )
    p.add_argument("--json", action="store_true", help="Print the report as JSON.")
    p.set_defaults(func=handler)


def _fail(message: str, code: int) -> int:
    print(f"error: {message}", file=sys.stderr)
    return code


def _tasks(text: str) -> list[str]:
    return [t.strip() for t in text.split(",") if t.strip()]


def handler(args: argparse.Namespace) -> int:
    from evals.miniwob import MiniWobUnavailable, list_tasks

    tasks = _tasks(args.tasks)
    if not tasks:
        return _fail("--tasks needs a task name, e.g. --tasks click-button", EXIT_BAD_INPUT)
    if args.episodes < 1 or args.max_steps < 1:
        return _fail("--episodes and --max-steps must be at least 1", EXIT_BAD_INPUT)
    try:
        unknown = sorted(set(tasks) - set(list_tasks()))
    except MiniWobUnavailable as err:
        return _fail(str(err), EXIT_RUNTIME)
    if unknown:
        return _fail(f"unknown MiniWoB task(s): {', '.join(unknown)}", EXIT_BAD_INPUT)
    model = args.model or "local"
    try:
        payload = asyncio.run(_run(args, tasks, model))
    except (ValueError, RuntimeError, OSError) as err:
        return _fail(f"eval miniwob failed: {err}", EXIT_RUNTIME)
    table = payload.pop("table")
    if args.json:
        print(json.dumps(payload, indent=2, default=str))
    else:
        print(table)
        print(f"success rate {payload['success_rate']:.3f} (reward == 1), model {model}, "
              f"workflows {args.workflows}; report: {payload['report']}")  # fmt: skip
    return 0


async def _run(args: argparse.Namespace, tasks: list[str], model: str) -> dict[str, Any]:
    from browser.config import EnvConfig
    from browser.limits import Limits
    from core.models import get_chat_model
    from evals.awm_miniwob import record_report, website_of
    from evals.miniwob import MiniWobReport, run_miniwob
    from evals.miniwob_policy import make_policy
    from evals.report import write_report

    get_chat_model(model)  # a bad spec fails here, before the browser starts
    config = EnvConfig(limits=Limits(max_steps=args.max_steps))
    episodes = []
    # One run per task so each task's memory (workflows, past runs) is its own "website".
    for task in tasks:
        policy = make_policy(
            model, home=args.home, use_workflows=args.workflows == "on", website=website_of(task)
        )
        run = await run_miniwob([task], args.episodes, args.seed, policy, config=config)
        episodes += run.episodes
    report = MiniWobReport(episodes)
    recorded = 0 if args.no_record else record_report(args.home, report)
    body = report.to_dict()
    summary = {
        "model": model,
        "workflows": args.workflows,
        "seed": args.seed,
        "episodes_per_task": args.episodes,
        "max_steps": args.max_steps,
        "success_rate": body["success_rate"],
        "mean_reward": body["mean_reward"],
        "mean_steps": _mean([e["steps"] for e in body["episodes"]]),
        "total_tokens": sum(e["tokens"] for e in body["episodes"]),
        "total_seconds": sum(e["seconds"] for e in body["episodes"]),
        "trajectories_recorded": recorded,
    }
    path = write_report(args.home, "miniwob", {**summary, **body})
    return {**summary, "tasks": body["tasks"], "report": str(path), "table": report.format_table()}


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0
