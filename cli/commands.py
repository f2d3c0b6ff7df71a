"""The subcommand table and the parser: commands are imported only when they are used.

To add a command, add one line to COMMANDS: its name, the module that implements it, and the
one-line help shown by `--help`. The module defines `register(subparsers)`, which adds
the parser named exactly like the command (`subparsers.add_parser(NAME, ...)`) and sets
`func=handler` on it; `handler(args) -> int` returns the exit code and raises typed errors
(cli.errors) instead of printing tracebacks. Keep heavy imports inside the handler: the module
is imported to build the parser, also for `NAME --help`.

`--help` imports no command module at all: every command appears as a stub with its
help line, and only the command named on the command line is imported and registered.

Global options (GLOBALS) are accepted before or after the subcommand, at any depth
(`memory list --home DIR`); a command must not define `--home`, `-v` or `--verbose`
itself. `--json` is global too: a command that prints JSON defines its own `--json` flag (for
its --help) and reads `args.json`; with `--json`, a failure is a JSON object on stdout.

The program calls itself as it was started (program_name), in its help, errors and hints alike,
so a hint is a command that works where it is printed; handlers find that name in `args.prog`.
"""

from __future__ import annotations

import argparse
import os

from cli.errors import EXIT_CODES_HELP, UsageError

TYPE_CHECKING = False  # typing, dataclasses, importlib.metadata: not loaded for --help
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any, NoReturn

    from core.models import Models


class Command:
    """A subcommand: the module whose `register(subparsers)` adds it, and its help line."""

    def __init__(self, module: str, help: str) -> None:
        self.module, self.help = module, help


COMMANDS: dict[str, Command] = {
    "run": Command("cli.run", "run the agent on a task"),
    "judge": Command("cli.judge", "tell memory whether a finished run's answer was right"),
    "memory": Command("cli.memory", "inspect and manage reflection memory"),
    "workflows": Command("cli.workflows", "induce, inspect and search workflow memory (AWM)"),
    "eval": Command("evals.cli", "run a benchmark and write a report (source checkout)"),
    "browse": Command("cli.browse", "show what the agent's browser sees at a URL"),
    "tools": Command("cli.tools", "list the tools the executor would get (MCP servers too)"),
}

RESERVED = ("--home", "-v", "--verbose")
LAB = "evals"  # the benchmarks' package: in the checkout, not in the wheel (pyproject.toml)
# what the product's modules are named under: "" in the checkout, "reflective_agent." installed
# (the wheel holds the product in that one package: setup.py)
WITHIN = __name__.removesuffix("cli.commands")
PROGRAM = "reflective-agent"  # the installed command (pyproject.toml, [project.scripts])


def program_name(argv0: str | None = None, environ: Mapping[str, str] = os.environ) -> str:
    """What the program calls itself: $AGENT_PROG when set (the checkout's `./agent` sets it
    to the name it was started by); a script started by Python `python main.py`; the installed
    command its own name; with no argv0 (main() called from Python), the installed name."""
    given = environ.get("AGENT_PROG")
    if given:
        return given
    if not argv0:
        return PROGRAM
    return f"python {argv0}" if argv0.endswith(".py") else os.path.basename(argv0)


class Globals:
    """The global options, wherever they appeared on the command line."""

    def __init__(self) -> None:
        self.home: str | None = None
        self.verbose = False
        self.json = False


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors raise UsageError (one `error:` line, exit 2)."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message} (see: {self.prog} --help)")


def split_globals(argv: list[str], prog: str = PROGRAM) -> tuple[Globals, list[str]]:
    """Take the global options out of `argv` (anywhere before a bare `--`)."""
    found, rest = Globals(), []
    tokens = iter(argv)
    for token in tokens:
        if token == "--":
            rest.append(token)
            rest.extend(tokens)
            break
        if token in ("-v", "--verbose"):
            found.verbose = True
        elif token == "--json":
            found.json = True
        elif token == "--home":
            found.home = next(tokens, None)
            if found.home is None:
                raise UsageError(f"{prog}: argument --home: expected one argument")
        elif token.startswith("--home="):
            found.home = token.partition("=")[2]
        else:
            rest.append(token)
    if found.home is not None and not found.home.strip():  # '' would quietly mean the default
        raise UsageError(f"{prog}: --home is empty: give a folder, or leave the option out")
    return found, rest


def shown(text: str, limit: int = 80) -> str:
    """`text` printable: bytes that are not UTF-8 as \\xNN escapes, cut to `limit`."""
    try:
        printable = os.fsencode(text).decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:  # a lone surrogate that no byte decodes to
        printable = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return printable if len(printable) <= limit else printable[: limit - 1] + "…"


def utf8_arguments(argv: list[str]) -> None:
    """Refuse an argument that is not valid UTF-8 (its bytes reach Python as surrogates, which
    no model, prompt or database takes), unless it names an existing file or folder."""
    for arg in argv:
        try:
            arg.encode("utf-8")
        except UnicodeEncodeError:
            if not os.path.lexists(arg):
                raise UsageError(
                    f"the argument '{shown(arg)}' is not valid UTF-8 text: give it as UTF-8 "
                    "(e.g. convert it with `iconv -t UTF-8`)"
                ) from None


def command_named(argv: list[str]) -> str | None:
    """The subcommand on the command line (globals are already taken out), if any."""
    for token in argv:
        if token == "--":
            return None
        if not token.startswith("-"):
            return token if token in COMMANDS else None
    return None


def _add_globals(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--home",
        default=None,
        help="data directory for memories, workflows, checkpoints and reports "
        "(default: $AGENT_HOME; else ./tmp in a checkout, else the user's data folder: "
        "$XDG_DATA_HOME/reflective-agent or ~/.local/share/reflective-agent)",
    )
    parser.add_argument(
        "-v", "--verbose", action="store_true", help="debug logs and tracebacks on stderr"
    )
    parser.add_argument(
        "--json", action="store_true", help="machine-readable output where a command has it"
    )
    parser.add_argument("--version", action=_Version, nargs=0, help="print the version and exit")


class _Version(argparse.Action):
    """--version, looked up only when asked for (importlib.metadata costs ~40 ms)."""

    def __call__(self, parser: Any, namespace: Any, values: Any, option: Any = None) -> None:
        print(f"{parser.prog} {version()}")
        parser.exit()


def version() -> str:
    """The installed package's version, else the one in pyproject.toml (a plain checkout)."""
    from importlib import metadata

    try:
        return metadata.version("reflective-agent")
    except metadata.PackageNotFoundError:
        import tomllib
        from pathlib import Path

        pyproject = Path(__file__).resolve().parent.parent / "pyproject.toml"
        return str(tomllib.loads(pyproject.read_text())["project"]["version"])


def _check_no_reserved(parser: argparse.ArgumentParser, name: str) -> None:
    for action in parser._actions:  # argparse offers no public walk of a parser tree
        clash = set(action.option_strings) & set(RESERVED)
        if clash:
            raise RuntimeError(
                f"command {name!r} defines the global option(s) {sorted(clash)}; "
                "use args.home / args.verbose instead (cli/commands.py)"
            )
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                _check_no_reserved(sub, name)


def _register(subparsers: Any, name: str) -> None:
    import importlib

    try:
        module = importlib.import_module(WITHIN + COMMANDS[name].module)
    except ModuleNotFoundError as missing:  # the benchmarks are not part of the package
        if missing.name != WITHIN + LAB or not COMMANDS[name].module.startswith(f"{LAB}."):
            raise
        raise UsageError(
            f"`{name}` runs the benchmarks, which come with the source checkout, not with the "
            "installed package: run `./agent eval ...` in a clone of the repository (the "
            "checkout's ./agent finds them; an installed command does not)"
        ) from None
    module.register(subparsers)
    parser = subparsers.choices.get(name)
    if parser is None:
        raise RuntimeError(f"{COMMANDS[name].module}.register() did not add a {name!r} command")
    _check_no_reserved(parser, name)


def build_parser(argv: list[str] | None = None, prog: str = PROGRAM) -> argparse.ArgumentParser:
    """The parser for `argv`: the named command fully registered, every other one a stub."""
    parser = Parser(
        prog=prog,
        description="A LangGraph agent that plans, executes with search and a real browser, "
        "reflects on its work, retries, and remembers what worked.",
        epilog=EXIT_CODES_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_globals(parser)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    chosen = command_named(argv or [])
    for name, command in COMMANDS.items():
        if name == chosen:
            _register(subparsers, name)
        else:
            subparsers.add_parser(name, help=command.help)
    return parser


def models_of(args: argparse.Namespace) -> Models:
    """The models a command uses: those `main.main(..., models=)` was given, else its own."""
    from core.models import Models

    return getattr(args, "models", None) or Models()
