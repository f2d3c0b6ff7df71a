"""Settings from the environment and config files, beneath the command line's own flags.

An option not given on the command line takes, in this order: its environment variable
(AGENT_MODEL for --model, SETTINGS below), HOME/config.toml, then the user's
$XDG_CONFIG_HOME/reflective-agent/config.toml (~/.config/… by default), then its own default.
A config file holds the options' names with underscores:

    model = "openai:gpt-4o-mini"
    corpus = "~/notes"          # a relative path is relative to the file's folder
    max_retries = 1

Every command reads them but `eval`, whose benchmarks name their settings on their command line.
A resumed run keeps the settings it was saved with: only flags change them (cli/run.py).
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from cli.errors import UsageError

SETTINGS = {  # option (its dest) -> environment variable
    "model": "AGENT_MODEL",
    "planner_model": "AGENT_PLANNER_MODEL",
    "executor_model": "AGENT_EXECUTOR_MODEL",
    "reflector_model": "AGENT_REFLECTOR_MODEL",
    "aggregator_model": "AGENT_AGGREGATOR_MODEL",
    "embedding_model": "AGENT_EMBEDDING_MODEL",
    "system_prompt": "AGENT_SYSTEM_PROMPT",
    "corpus": "AGENT_CORPUS",
    "mcp": "AGENT_MCP",
    "graph": "AGENT_GRAPH",
    "judge": "AGENT_JUDGE",
    "induction": "AGENT_INDUCTION",
    "max_retries": "AGENT_MAX_RETRIES",
    "max_hops": "AGENT_MAX_HOPS",
    "max_tool_steps": "AGENT_MAX_TOOL_STEPS",
    "max_calls": "AGENT_MAX_CALLS",
    "max_tokens": "AGENT_MAX_TOKENS",
    "max_seconds": "AGENT_MAX_SECONDS",
    "memory_url": "AGENT_MEMORY_URL",
}
PATHS = ("corpus", "mcp")  # in a config file, relative to its folder
UNSETTABLE = ("eval",)
CONFIG = "config.toml"


class _NotGiven:
    """An option's default while parsing: still there after, the option was not given."""

    def __init__(self, default: Any) -> None:
        self.default = default


def config_files(home: str, environ: Mapping[str, str] = os.environ) -> list[Path]:
    """The config files read, the one that wins first."""
    user = environ.get("XDG_CONFIG_HOME", "")
    if not os.path.isabs(user):
        user = str(Path(environ.get("HOME") or Path.home()) / ".config")
    return [Path(home) / CONFIG, Path(user) / "reflective-agent" / CONFIG]


def hold_defaults(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    """Mark the defaults of the settable options of `parser`'s commands, so that fill() can
    tell an option left out from one given with its default value."""
    held = []
    for action in _settable(parser):
        action.default = _NotGiven(action.default)
        held.append(action)
    return held


def fill(
    args: argparse.Namespace,
    held: list[argparse.Action],
    home: str,
    environ: Mapping[str, str] = os.environ,
) -> set[str]:
    """Give each option left out its setting (or its own default); the dests filled so."""
    found = _found(home, environ) if held else {}
    filled = set()
    for action in held:
        value = getattr(args, action.dest, None)
        if not isinstance(value, _NotGiven):
            continue
        if action.dest in found:
            setting, source = found[action.dest]
            setattr(args, action.dest, _converted(action, setting, source))
            filled.add(action.dest)
        else:
            setattr(args, action.dest, value.default)
    return filled


def _settable(parser: argparse.ArgumentParser, top: bool = True) -> Iterator[argparse.Action]:
    for action in parser._actions:  # argparse offers no public walk of a parser tree
        if action.dest in SETTINGS and action.option_strings:
            yield action
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                if not (top and name in UNSETTABLE):
                    yield from _settable(sub, top=False)


def _found(home: str, environ: Mapping[str, str]) -> dict[str, tuple[Any, str]]:
    """Each setting's value and where it came from, the winning source's."""
    found: dict[str, tuple[Any, str]] = {}
    for path in reversed(config_files(home, environ)):
        found.update({k: (v, str(path)) for k, v in _read(path).items()})
    for dest, name in SETTINGS.items():
        if environ.get(name):
            found[dest] = (environ[name], name)
    return found


def _read(path: Path) -> dict[str, Any]:
    """A config file's settings (paths made absolute); {} when there is none."""
    if not path.is_file():
        return {}
    import tomllib

    try:
        values = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise UsageError(f"cannot read the settings in {path}: {exc}") from exc
    unknown = sorted(set(values) - set(SETTINGS))
    if unknown:
        raise UsageError(
            f"{path}: unknown setting(s) {', '.join(unknown)}; known: {', '.join(SETTINGS)}"
        )
    for name in PATHS:
        if isinstance(values.get(name), str):
            values[name] = str(path.parent / Path(values[name]).expanduser())
    return values


def _converted(action: argparse.Action, value: Any, source: str) -> Any:
    """`value` as the option's own type would parse it; a UsageError naming `source`."""
    flag = action.option_strings[-1]
    try:
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            raise ValueError("not a string or a number")
        converted = action.type(str(value)) if callable(action.type) else str(value)
    except (TypeError, ValueError, argparse.ArgumentTypeError) as exc:
        raise UsageError(
            f"{source}: {action.dest} = {value!r} is no value for {flag}: {exc}"
        ) from None
    if action.choices is not None and converted not in action.choices:
        choices = ", ".join(map(str, action.choices))
        raise UsageError(f"{source}: {action.dest} = {value!r}: choose one of {choices} ({flag})")
    return converted
