"""`eval hotpotqa-reflexion`: run Reflexion's trials and print our curve beside the published
endpoints (labelled with the trials actually run)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from cli.errors import CommandFailed, UsageError


def _settings(args: argparse.Namespace, out: Path) -> Any:
    from evals.hotpotqa.reflexion import ReflexionSettings

    return ReflexionSettings(
        file=Path(args.file),
        out=out,
        arms=[a.strip() for a in args.arms.split(",") if a.strip()],
        trials=args.trials,
        limit=args.limit,
        model=args.model or "local",
        graph=args.graph,
        max_retries=args.max_retries,
        workers=args.workers,
        ray_address=args.ray_address,
    )


def run_and_print(args: argparse.Namespace, out: Path) -> int:
    from evals.hotpotqa.dataset import load_hotpotqa
    from evals.hotpotqa.reflexion import run_reflexion, solved_curves

    s = _settings(args, out)
    try:
        s.validate()
        ids = [q.id for q in load_hotpotqa(s.file, s.limit)]
        log = run_reflexion(s)
    except ValueError as exc:
        raise UsageError(str(exc)) from exc
    except (RuntimeError, OSError) as exc:
        raise CommandFailed(
            f"eval hotpotqa-reflexion failed: {exc} (rerun with --out {out} to resume)"
        ) from exc
    curves = solved_curves(log, s.arms, ids)
    ran = max((len(c) for c in curves.values()), default=0)
    report = _report(args.report, log, s, ids, curves) if args.report else None
    if args.json:
        body = {
            "questions": len(ids),
            "trials_run": ran,
            "trials_asked": s.trials,
            "solved_by_trial": curves,
            "results": str(log.path),
            "report": report,
        }
        print(json.dumps(body))
        return 0
    _print_curves(s, ids, curves, ran, log)
    if report:
        print(f"report: {report}")
    return 0


def _print_curves(
    s: Any, ids: list[str], curves: dict[str, list[float]], ran: int, log: Any
) -> None:
    from evals.hotpotqa.reflexion import REFERENCE_NOTE

    print(curve_table(curves, len(ids)))
    done = " (no wrong answers left)" if ran < s.trials else ""
    print(f"\ntrials run: {ran} of {s.trials}{done}")
    print(f"questions: {len(ids)}   model: {s.model}   graph: {s.graph}   results: {log.path}")
    print(f"reference: {REFERENCE_NOTE}")


def curve_table(curves: dict[str, list[float]], n: int) -> str:
    from evals.hotpotqa.reflexion import REFLEXION_COT_GOLD
    from evals.report.tables import format_table

    trials = max((len(c) for c in curves.values()), default=0)
    headers = ["trial", *(f"{arm}: solved so far" for arm in curves), "Reflexion CoT+gold (100 q)"]
    rows = []
    for k in range(1, trials + 1):
        cells = [
            f"{round(c[k - 1] * n)}/{n} ({c[k - 1]:.0%})" if k <= len(c) else "-"
            for c in curves.values()
        ]
        ref = REFLEXION_COT_GOLD.get(k)
        rows.append([k, *cells, f"{ref:.0%}" if ref is not None else "-"])
    return format_table(headers, rows)


def _report(folder: str, log: Any, s: Any, ids: list[str], curves: dict[str, list[float]]) -> str:
    import shutil

    from evals.hotpotqa.reflexion import REFERENCE_NOTE, REFLEXION_COT_GOLD, per_question
    from evals.report.page import ReportSpec, write_report_dir

    spec = ReportSpec(
        title=f"HotpotQA in Reflexion's protocol, graph {s.graph}, model {s.model}",
        group_key=None,
        success_label="solved in any trial",
        metrics=("trials", "calls", "seconds"),
        cost_metrics=("calls", "seconds"),
        curves={arm: [(k + 1, y) for k, y in enumerate(c)] for arm, c in curves.items()},
        curve_axes=("trial", "share solved so far", "solved by trial k (cumulative)"),
        references={"Reflexion CoT+gold, 100 q": sorted(REFLEXION_COT_GOLD.items())},
        notes=[f"{len(ids)} questions; per-trial records: trials.jsonl", REFERENCE_NOTE],
    )
    page = write_report_dir(folder, per_question(log, s.arms, ids), spec)
    shutil.copyfile(log.path, Path(folder) / "trials.jsonl")
    return str(page)
