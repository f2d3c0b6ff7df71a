"""Command line: parse → build → stream → print. No agent logic lives here.

python main.py run "TASK" [--corpus DIR] [--model local] [--json]
python main.py memory|workflows|eval ...      (see --help of each)
(`./agent` in a checkout, `reflective-agent` installed; each names itself so in its messages)

Commands live in cli/commands.py (imported only when used); exit codes in cli/errors.py.
"""

from __future__ import annotations

import sys
from typing import Any

from cli.commands import build_parser, command_named, program_name, split_globals, utf8_arguments
from cli.errors import UsageError, report

__all__ = ["build_parser", "main", "run"]


def _setup_logging(verbose: bool) -> None:
    import logging

    logging.basicConfig(
        level=logging.DEBUG if verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
    )


def _home(given: str | None) -> str:
    from pathlib import Path

    from core.context import default_home

    home = str(Path(given or default_home()).expanduser().resolve())
    try:
        Path(home).mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"cannot use {home} as the data directory (--home): {exc}") from exc
    return home


def _hold_settings(parser: Any, argv: list[str]) -> list[Any]:
    """The settable options of the named command, marked (no command, as for --help: none)."""
    if command_named(argv) is None:
        return []
    from cli import settings

    return settings.hold_defaults(parser)


def _settings(args: Any, held: list[Any]) -> set[str]:
    """The options left out filled from the environment and config files (cli/settings.py)."""
    if not held:
        return set()
    from cli import settings

    return settings.fill(args, held, args.home)


def main(
    argv: list[str] | None = None,
    *,
    models: Any = None,
    tools: Any = None,
    prog: str | None = None,
) -> int:
    """Run one command; every failure becomes one `error:` line and a documented exit code.

    `models` (core.models.Models) and `tools` (a core.context.ToolOpener) stand in for the ones
    a run would build: how an app or a test runs the CLI on its own models and tools. `prog`
    is what the program calls itself (default: how it was started, cli.commands.program_name).
    """
    prog = prog or program_name(sys.argv[0] if argv is None else None)
    argv = sys.argv[1:] if argv is None else list(argv)
    verbose, as_json = "-v" in argv or "--verbose" in argv, "--json" in argv
    try:
        utf8_arguments(argv)
        found, rest = split_globals(argv, prog)
        verbose, as_json = found.verbose, found.json
        parser = build_parser(rest, prog)
        held = _hold_settings(parser, rest)
        try:
            args = parser.parse_args(rest)
        except SystemExit as done:  # --help and --version end here
            return int(done.code or 0)
        args.verbose, args.json = verbose, as_json or bool(getattr(args, "json", False))
        _setup_logging(verbose)
        args.home = _home(found.home)
        args.from_settings = _settings(args, held)
        args.models, args.tools, args.prog = models, tools, prog
        return int(args.func(args) or 0)
    except SystemExit:
        raise
    except BaseException as exc:  # the one place a failure becomes a line and an exit code
        return report(exc, verbose=verbose, as_json=as_json)


def run() -> None:
    """`python main.py` and the `reflective-agent` script: main(), then a prompt exit."""
    from cli.shutdown import exit_promptly

    exit_promptly(main())


if __name__ == "__main__":
    run()
