"""`eval awm-miniwob`: the AWM protocol on MiniWoB++ (offline or online), arms side by side.

    ./agent eval awm-miniwob --setting online --episodes 20 --arms all --workers 2 \
        --out tmp/experiments/awm-online --report tmp/reports/awm-online

Progress goes to stderr; the table (per arm, and per arm and family) to stdout. Every
finished episode is a line of OUT/results.jsonl: rerun the same command to resume.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from pathlib import Path
from typing import Any

from cli.errors import CommandFailed, UsageError

# The full experiment whose runtime is estimated from the episodes run so far: every arm on the
# first 10 default families, 20 test episodes each.
FULL = {"families": 10, "episodes": 20}


def register_awm(benchmarks: Any) -> None:
    """Add `awm-miniwob` to the `eval` command's benchmarks (idempotent)."""
    if "awm-miniwob" in benchmarks.choices:
        return
    p = benchmarks.add_parser("awm-miniwob", help="The AWM protocol on MiniWoB++, arm by arm.")
    p.add_argument("--setting", required=True, choices=("offline", "online"))
    p.add_argument("--families", default=None, help="Comma-separated MiniWoB tasks (default: 12).")
    p.add_argument("--episodes", type=int, default=20, help="Test episodes per family.")
    p.add_argument("--arms", default="all", help="all, or e.g. no-memory,workflows,reflections")
    p.add_argument("--model", default="local", help="Model spec for the agent (default: local).")
    p.add_argument("--max-steps", type=int, default=10, help="Actions per episode.")
    p.add_argument("--seed", type=int, default=0, help="First test seed.")
    p.add_argument("--train-seed", type=int, default=1000, help="First training seed (offline).")
    p.add_argument("--train-episodes", type=int, default=5, help="Training seeds per family.")
    p.add_argument("--induction", choices=("rule", "llm"), default="rule")
    p.add_argument("--embedding-model", default="local", help="Embeddings for memory search.")
    p.add_argument("--out", default=None, help="Results and memory (default: HOME/experiments/…).")
    p.add_argument("--report", default=None, help="Write an HTML report with plots here.")
    p.add_argument("--workers", type=int, default=1, help="Parallel workers (Ray when > 1).")
    p.add_argument("--ray-address", default=None, help="Join this Ray cluster instead.")
    p.add_argument("--json", action="store_true", help="Print the summary as JSON.")
    p.set_defaults(func=handler)


def settings_from(args: argparse.Namespace) -> Any:
    from evals.awm.arms import parse_arms
    from evals.awm.protocol import DEFAULT_FAMILIES, AwmSettings

    families = [f.strip() for f in (args.families or "").split(",") if f.strip()]
    out = args.out or Path(args.home) / "experiments" / f"awm-miniwob-{args.setting}"
    return AwmSettings(
        setting=args.setting,
        families=families or list(DEFAULT_FAMILIES),
        arms=parse_arms(args.arms),
        out=Path(out),
        episodes=args.episodes,
        model=args.model,
        max_steps=args.max_steps,
        test_seed=args.seed,
        train_seed=args.train_seed,
        train_episodes=args.train_episodes,
        induction=args.induction,
        embedding_model=args.embedding_model,
        workers=args.workers,
        ray_address=args.ray_address,
    )


def _check_families(families: list[str]) -> str | None:
    from evals.miniwob.harness import list_tasks
    from evals.miniwob.oracle import PLANNERS

    unknown = sorted(set(families) - set(list_tasks()))
    if unknown:
        return f"unknown MiniWoB task(s): {', '.join(unknown)}"
    no_oracle = sorted(set(families) - set(PLANNERS))
    if no_oracle:  # offline demonstrations come from the oracle
        return f"no oracle demonstrations for {', '.join(no_oracle)}; known: {', '.join(PLANNERS)}"
    return None


def _checked_settings(args: argparse.Namespace) -> Any:
    """The experiment's settings, refused before anything runs when they cannot work."""
    from evals.miniwob.harness import MiniWobUnavailable

    try:
        s = settings_from(args)
        s.validate()
        problem = _check_families(s.families)
    except MiniWobUnavailable as err:
        # exit 1: the run cannot happen here, though nothing asked for is wrong
        raise CommandFailed(str(err)) from err
    except ValueError as err:
        raise UsageError(str(err)) from err
    if problem:
        raise UsageError(problem)
    return s


def handler(args: argparse.Namespace) -> int:
    from evals.awm.protocol import run_protocol
    from evals.common.results_log import ResultsLogError

    s = _checked_settings(args)
    try:
        log = run_protocol(s)
    except ResultsLogError as err:
        raise UsageError(str(err)) from err
    except (RuntimeError, OSError) as err:
        raise CommandFailed(
            f"eval awm-miniwob failed: {err} (finished episodes are kept; rerun to resume)"
        ) from err
    return _print_results(args, s, log)


def _print_results(args: argparse.Namespace, s: Any, log: Any) -> int:
    from evals.awm.arms import ARMS
    from evals.awm.protocol import DEFAULT_FAMILIES, estimate_line, plan_jobs, scored_records
    from evals.awm.verify import admissions
    from evals.report.tables import interval_table

    records = scored_records(log, s)
    full = dataclasses.replace(
        s,
        arms=list(ARMS.values()),
        episodes=FULL["episodes"],
        families=list(DEFAULT_FAMILIES[: FULL["families"]]),
    )
    agent_jobs = [j for j in plan_jobs(full) if "phase" in j.payload]
    estimate = estimate_line(records, len(agent_jobs), s.workers)
    admitted = admissions(records)
    report = _write_report(args.report, records, s) if args.report else None
    if args.json:
        body = {
            "results": str(log.path),
            "episodes": len(records),
            "estimate_full": estimate,
            "report": report,
            "workflows_verified": admitted,
        }
        print(json.dumps(body))
        return 0
    print(interval_table(records, ["arm"]))
    print()
    print(interval_table(records, ["arm", "family"]))
    for arm, n in admitted.items():
        print(f"{arm}: {n['replayed']} workflows learned and replayed, {n['admitted']} admitted")
    print(
        f"\n{len(records)} test episodes, setting {s.setting}, model {s.model}; results: {log.path}"
    )
    print(f"runtime: {estimate} (full experiment: 5 arms x 10 families x 20 episodes)")
    if report:
        print(f"report: {report}")
    return 0


def _write_report(folder: str, records: list[dict[str, Any]], s: Any) -> str:
    from evals.report.page import ReportSpec, write_report_dir
    from evals.report.stats import running_success

    ordered = sorted(records, key=lambda r: (r["position"], r["family"]))
    train_seeds = f"{s.train_seed}..{s.train_seed + s.train_episodes - 1}"
    spec = ReportSpec(
        title=f"AWM on MiniWoB++ ({s.setting}), model {s.model}",
        curves=running_success(ordered),
        curve_axes=(
            "test episodes per family so far",
            "running success rate",
            f"success over episodes ({s.setting})",
        ),
        notes=[
            f"test seeds {s.test_seed}..{s.test_seed + s.episodes - 1}, "
            f"training seeds {train_seeds}",
            f"families: {', '.join(s.families)}",
            f"induction: {s.induction}",
        ],
    )
    return str(write_report_dir(folder, records, spec))
