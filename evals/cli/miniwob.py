"""`eval miniwob`: the web agent on MiniWoB++ tasks served locally; a table and a JSON report."""

from __future__ import annotations

import argparse
import json
import time
from contextlib import nullcontext
from pathlib import Path
from typing import Any

from cli.errors import CommandFailed, UsageError


def register_miniwob(benchmarks: Any) -> None:
    """Add `miniwob` to the `eval` command's benchmarks (evals.cli.eval_subparsers).

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
    p.add_argument(
        "--plan",
        choices=("on", "off"),
        default="on",
        help="Plan the task's steps before acting, each decision doing the next (default on).",
    )
    p.add_argument("--max-steps", type=int, default=30, help="Actions per episode (default 30).")
    p.add_argument("--model", default=None, help="Model spec for the agent (default: local).")
    p.add_argument(
        "--no-record", action="store_true", help="Do not record trajectories into memory."
    )
    p.add_argument("--out", default=None, help="Results folder; the same one resumes a run.")
    p.add_argument("--report", default=None, help="Write an HTML report with plots here.")
    p.add_argument("--workers", type=int, default=1, help="Parallel workers (Ray when > 1).")
    p.add_argument("--ray-address", default=None, help="Join this Ray cluster instead.")
    p.add_argument("--json", action="store_true", help="Print the report as JSON.")
    p.set_defaults(func=handler)


def _tasks(args: argparse.Namespace) -> list[str]:
    """The tasks asked for, each checked against the installed task pages."""
    from evals.miniwob.harness import MiniWobUnavailable, list_tasks

    tasks = [t.strip() for t in args.tasks.split(",") if t.strip()]
    if not tasks:
        raise UsageError("--tasks needs a task name, e.g. --tasks click-button")
    if args.episodes < 1 or args.max_steps < 1:
        raise UsageError("--episodes and --max-steps must be at least 1")
    try:
        unknown = sorted(set(tasks) - set(list_tasks()))
    except MiniWobUnavailable as err:
        # exit 1: the run cannot happen here, though nothing asked for is wrong
        raise CommandFailed(str(err)) from err
    if unknown:
        raise UsageError(f"unknown MiniWoB task(s): {', '.join(unknown)}")
    return tasks


def handler(args: argparse.Namespace) -> int:
    tasks = _tasks(args)
    model = args.model or "local"
    try:
        payload = _run(args, tasks, model)
    except (ValueError, RuntimeError, OSError) as err:
        raise CommandFailed(f"eval miniwob failed: {err}") from err
    table = payload.pop("table")
    if args.json:
        print(json.dumps(payload, indent=2, default=str))
    else:
        print(table)
        print(
            f"success rate {payload['success_rate']:.3f} (reward == 1), model {model}, "
            f"workflows {args.workflows}, plan {args.plan}; report: {payload['report']}"
        )
    return 0


def _jobs(args: argparse.Namespace, tasks: list[str], model: str) -> list[Any]:
    """One chain per task: its episodes run in order, so each learns from the ones before."""
    from evals.common.workers import Job

    payload = {
        "model": model,
        "home": args.home,
        "workflows": args.workflows == "on",
        "plan": args.plan == "on",
        "max_steps": args.max_steps,
    }
    return [
        Job(
            f"{t}#{args.seed + i}",
            "evals.miniwob.jobs:policy_episode",
            {**payload, "task": t, "seed": args.seed + i},
            chain=t,
        )
        for t in tasks
        for i in range(args.episodes)
    ]


def _run(args: argparse.Namespace, tasks: list[str], model: str) -> dict[str, Any]:
    from cli.commands import models_of
    from core.model_spec import parse_spec
    from evals.awm.miniwob import episode_trajectory
    from evals.common.progress import ProgressMeter
    from evals.common.results_log import ResultsLog
    from evals.common.workers import run_jobs
    from evals.miniwob.jobs import episode_from_record
    from memory.agent_memory import AgentMemory
    from memory.stores.project_store import open_project_store

    parse_spec(model)  # a bad spec fails here, before the browser starts
    settings = {"model": model, "workflows": args.workflows, "max_steps": args.max_steps}
    if args.plan == "off":  # a folder of plan-on runs (planning was always on) still resumes
        settings["plan"] = "off"
    log = ResultsLog(_out(args) / "results.jsonl", settings)
    jobs = _jobs(args, tasks, model)
    meter = ProgressMeter("miniwob", len(jobs))
    done = [log.records_by_key()[j.key] for j in jobs if j.key in log]
    meter.resume(len(done), sum(bool(r["success"]) for r in done))
    recorded = 0

    def on_result(record: dict[str, Any]) -> None:
        nonlocal recorded
        log.append(record)
        if not args.no_record:
            memory.record_trajectory(episode_trajectory(episode_from_record(record)))
            recorded += 1
        meter.update(bool(record["success"]), f"{record['key']} steps={record['steps']}")

    todo = [j for j in jobs if j.key not in log]
    # recorded in the store the policy reads its memory from, with its embeddings; with
    # --no-record the store is not opened at all
    opened = (
        nullcontext(None)
        if args.no_record
        else open_project_store(args.home, "local", models=models_of(args))
    )
    with opened as store:
        memory = AgentMemory(store)
        run_jobs(todo, on_result, workers=args.workers, ray_address=args.ray_address)
    by_key = log.records_by_key()
    return _results(args, model, [by_key[j.key] for j in jobs], recorded, str(log.path))


def _results(
    args: argparse.Namespace,
    model: str,
    records: list[dict[str, Any]],
    recorded: int,
    results: str,
) -> dict[str, Any]:
    """The summary, the JSON report under HOME/reports and, with --report, the HTML page."""
    from evals.miniwob.harness import MiniWobReport
    from evals.miniwob.jobs import episode_from_record
    from evals.report.json_report import write_report

    report = MiniWobReport([episode_from_record(r) for r in records])
    summary = _summary(args, model, report.to_dict(), recorded, results)
    path = write_report(args.home, "miniwob", {**summary, **report.to_dict()})
    if args.report:
        summary["report_page"] = _page(args, records, model)
    return {
        **summary,
        "tasks": report.to_dict()["tasks"],
        "report": str(path),
        "table": report.format_table(),
    }


def _summary(
    args: argparse.Namespace, model: str, body: dict[str, Any], recorded: int, results: str
) -> dict[str, Any]:
    return {
        "model": model,
        "workflows": args.workflows,
        "plan": args.plan,
        "seed": args.seed,
        "episodes_per_task": args.episodes,
        "max_steps": args.max_steps,
        "success_rate": body["success_rate"],
        "mean_reward": body["mean_reward"],
        "mean_steps": _mean([e["steps"] for e in body["episodes"]]),
        "total_tokens": sum(e["tokens"] for e in body["episodes"]),
        "total_seconds": sum(e["seconds"] for e in body["episodes"]),
        "trajectories_recorded": recorded,
        "results": results,
    }


def _out(args: argparse.Namespace) -> Path:
    if args.out:
        return Path(args.out)
    return Path(args.home) / "experiments" / f"miniwob-{time.strftime('%Y%m%d-%H%M%S')}"


def _page(args: argparse.Namespace, records: list[dict[str, Any]], model: str) -> str:
    from evals.report.page import ReportSpec, write_report_dir

    arm = {"arm": f"workflows {args.workflows}, plan {args.plan}"}
    rows = [{k: v for k, v in r.items() if k != "trajectory"} | arm for r in records]
    spec = ReportSpec(title=f"MiniWoB++, web agent on {model}", success_label="success (reward 1)")
    return str(write_report_dir(args.report, rows, spec))


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0
