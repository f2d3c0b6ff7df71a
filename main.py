"""Command line: parse → build → stream → print. No agent logic lives here.

python main.py run "TASK" [--corpus DIR] [--model local] [--json]
python main.py memory|workflows|eval ...      (see --help of each)
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from pathlib import Path

from core.context import default_home

COMMANDS = ("cli.run", "cli.memory", "cli.workflows", "cli.evals")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="main.py",
        description="A LangGraph agent that plans, executes with search and a real browser, "
        "reflects on its work, retries, and remembers what worked.",
    )
    parser.add_argument(
        "--home",
        default=None,
        help="data directory for memories, workflows, checkpoints and reports "
        "(default: $AGENT_HOME or ./tmp)",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug details to stderr")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMANDS:
        module = __import__(name, fromlist=["register"])
        module.register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
    )
    args.home = str(Path(args.home or default_home()).resolve())
    os.environ["AGENT_HOME"] = args.home  # graphs built later default to the same place
    Path(args.home).mkdir(parents=True, exist_ok=True)
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
