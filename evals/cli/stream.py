"""`eval hotpotqa-stream`: the questions in order, once each, with memory fresh per question or
carried through the stream (and carried with parts of memory left out), side by side.

    ./agent eval hotpotqa-stream --file tests/data/hotpotqa/distractor_dev60.json --limit 20 \
        --arms fresh,carry --max-tool-steps 0 --max-retries 1 --out tmp/experiments/stream \
        --report docs/results/hotpotqa-stream

Each arm is one `eval hotpotqa` run under OUT/ARM (resumable); the table prints every arm's
EM with its 95% interval beside the others, and --report writes the page with summary.json.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from cli.errors import CommandFailed, UsageError
from evals.cli.hotpotqa import graph_options, hotpot_settings


def register_stream(benchmarks: Any) -> None:
    from evals.hotpotqa.stream import ARMS

    p = benchmarks.add_parser(
        "hotpotqa-stream",
        help="Does memory carried between different questions help? Arms side by side.",
    )
    graph_options(p)
    p.add_argument(
        "--arms",
        default="fresh,carry",
        help=f"Comma-separated arms, run in this order: {', '.join(ARMS)} (default: fresh,carry).",
    )
    p.set_defaults(func=stream_handler)


def stream_handler(args: argparse.Namespace) -> int:
    from evals.hotpotqa.dataset import load_hotpotqa
    from evals.hotpotqa.stream import StreamSettings, arm_summaries, arms_table, run_stream
    from evals.hotpotqa.stream import write_stream_report as write_report

    base = hotpot_settings(args, name="hotpotqa-stream")
    s = StreamSettings(base, arms=[a.strip() for a in args.arms.split(",") if a.strip()])
    try:
        s.validate()
        questions = load_hotpotqa(base.file, base.limit)
        by_arm = run_stream(s, questions)
    except ValueError as exc:  # bad file, arm or settings of another run in OUT
        raise UsageError(str(exc)) from exc
    except (RuntimeError, OSError) as exc:
        raise CommandFailed(
            f"eval hotpotqa-stream failed: {exc} (rerun with --out {base.out} to resume)"
        ) from exc
    arms = arm_summaries(by_arm)
    report = str(write_report(args.report, by_arm, s)) if args.report else None
    if args.json:
        print(json.dumps({"arms": arms, "results": str(base.out), "report": report}))
        return 0
    print(arms_table(arms))
    print(f"results: {base.out}" + (f"\nreport: {report}" if report else ""))
    return 0
