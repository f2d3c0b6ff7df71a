"""The `eval` command run as main.py runs it, for the tests of its subcommands."""

from __future__ import annotations

import argparse
from pathlib import Path

import evals.cli as eval_cli
from cli import errors


def run_cli(argv: list[str], home: Path) -> int:
    """The `eval` command run as main.py runs it: a raised failure becomes its exit code."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--home", default=str(home))
    eval_cli.register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except Exception as exc:  # noqa: BLE001 - as main.main: cli.errors reports every failure
        return errors.report(exc)
