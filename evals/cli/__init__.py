"""The `eval` command: one table of benchmarks, each added by its own evals/cli/<bench>.py.

Other modules add a benchmark to the same table through `eval_subparsers(subparsers)`, whatever
order they are registered in; failures are raised as cli.errors types and reported by main.py.
"""

from __future__ import annotations

import argparse
from typing import Any

from evals.cli.awm import register_awm
from evals.cli.hotpotqa import register_hotpotqa
from evals.cli.miniwob import register_miniwob
from evals.cli.multihop import register_multihop
from evals.cli.stream import register_stream
from evals.cli.webarena import register_webarena

BENCHMARKS_DEST = "benchmark"


def eval_subparsers(subparsers: Any) -> Any:
    """The `eval` command's benchmark table, created on first use."""
    parser = subparsers.choices.get("eval")
    if parser is None:
        parser = subparsers.add_parser("eval", help="Run a benchmark and write a report.")
        return parser.add_subparsers(dest=BENCHMARKS_DEST, required=True, metavar="BENCHMARK")
    # The table lives on the parser itself, so nothing outlives the parser that owns it.
    for action in parser._actions:  # argparse offers no public walk of a parser tree
        if isinstance(action, argparse._SubParsersAction) and action.dest == BENCHMARKS_DEST:
            return action
    raise RuntimeError("an `eval` command exists that evals.cli.eval_subparsers did not create")


def register(subparsers: Any) -> None:
    benchmarks = eval_subparsers(subparsers)
    register_webarena(benchmarks)
    register_hotpotqa(benchmarks)
    register_multihop(benchmarks)
    register_stream(benchmarks)
    register_miniwob(benchmarks)
    register_awm(benchmarks)
