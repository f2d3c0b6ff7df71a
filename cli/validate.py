"""Checks on `run`'s input before anything expensive starts: the task, bounds, thread ids, the
corpus, the data directory, a saved run's settings.

Each failure raises cli.errors.UsageError (exit 2) with a message that says what to change.
"""

from __future__ import annotations

import math
import os
import re
import sys
from pathlib import Path
from typing import Any

from cli.commands import PROGRAM, shown
from cli.errors import UsageError

MAX_RETRIES = 10  # 11 attempts per task is already far past where retries stop helping
# A question, not a document: the embedded models see 4,096-8,192 tokens in all, and material
# to work from belongs in a --corpus folder, where it is searched instead of sent whole.
MAX_TASK_CHARS = 10_000
THREAD_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


def task(value: str | None, prog: str = PROGRAM) -> str:
    """The task if it is not empty and at most MAX_TASK_CHARS long."""
    text = (value or "").strip()
    if not text:
        raise UsageError(f'the task is empty: give a task, e.g. {prog} run "What is ...?"')
    if len(text) > MAX_TASK_CHARS:
        raise UsageError(
            f"the task is {len(text):,} characters; the limit is {MAX_TASK_CHARS:,}: ask a "
            "shorter question and put the material it is about in a --corpus folder"
        )
    return text


def system_prompt(value: str | None) -> str | None:
    """The system prompt when given (--system-prompt, AGENT_SYSTEM_PROMPT or a config file's
    system_prompt): not blank, at most MAX_TASK_CHARS long."""
    if value is None:
        return None
    text = value.strip()
    if not text or len(text) > MAX_TASK_CHARS:
        size = "empty" if not text else f"{len(text):,} characters"
        raise UsageError(
            f"the system prompt (--system-prompt, AGENT_SYSTEM_PROMPT or system_prompt in a "
            f"config file) is {size}: give one to {MAX_TASK_CHARS:,} characters saying what the "
            "agent is, or leave it out"
        )
    return text


def writable_home(home: str) -> Path:
    """HOME/runs, after checking that a file can be written there (read-only or full disks
    fail here, in a second, not inside the run)."""
    runs = Path(home) / "runs"
    probe = runs / f".probe-{os.getpid()}"
    try:
        runs.mkdir(parents=True, exist_ok=True)
        probe.write_bytes(b"ok")
        probe.unlink()
    except OSError as exc:
        raise UsageError(
            f"cannot write to the data directory {shown(home, 200)} (--home): "
            f"{exc.strerror or exc}; make it writable or give another --home"
        ) from exc
    return runs


def bounded(name: str, value: int, low: int, high: int) -> int:
    """`value` if low <= value <= high, else a UsageError naming the option and its range."""
    if not low <= value <= high:  # nan too: it compares false with everything
        raise UsageError(f"{name} must be between {low} and {high}, got {value}")
    return value


def output_file(name: str, value: str | None) -> Path | None:
    """A file to write at the end, checked now so a long run is not lost to a typo: its folder
    exists, and it is not itself a folder."""
    if path_given(name, value) is None:
        return None
    path = Path(str(value)).expanduser()
    if path.is_dir():
        raise UsageError(f"{name} {shown(str(value), 200)} is a folder: give a file name")
    if not path.parent.is_dir():
        raise UsageError(
            f"{name}: no folder {shown(str(path.parent), 200)}: create it or give another path"
        )
    return path.resolve()


def positive(name: str, value: float) -> float:
    """`value` if it is a finite number above 0: nan, inf, 0 and negatives are refused (a cap
    of nan or inf would silently be no cap at all)."""
    if isinstance(value, bool) or not math.isfinite(value) or value <= 0:
        raise UsageError(f"{name} must be positive and finite, got {value}")
    return value


def path_given(name: str, value: str | None) -> str | None:
    """`value` unless it is an empty path ('' would silently mean the current folder or
    nothing at all, depending on the option)."""
    if value is not None and not value.strip():
        raise UsageError(f"{name} is empty: give a path, or leave the option out")
    return value


def thread_id(value: str) -> str:
    """A thread id safe to use as a file name: letters, digits, '_' and '-', at most 64."""
    if not THREAD_ID.fullmatch(value):
        raise UsageError(
            f"invalid thread id {value!r}: use the id printed by `run` "
            "(letters, digits, '_' or '-', at most 64 characters)"
        )
    return value


def origin(value: str) -> str:
    """'*' or an http(s) origin such as http://127.0.0.1:8000 (a trailing '/' is dropped)."""
    value = value.strip().rstrip("/")
    if value == "*" or (
        value.startswith(("http://", "https://")) and "/" not in value[8:] and _parses(value)
    ):
        return value
    raise UsageError(
        f"--allow-origin {shown(repr(value), 200)}: give an origin like https://example.org or "
        "http://127.0.0.1:8000 (scheme, host and optional port; '*' allows any)"
    )


def _parses(url: str) -> bool:
    """Whether `url` has a host and a valid port ('http://[::1' or a port of 99999 do not)."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 -- reading it is the check: a bad port raises ValueError
    except ValueError:
        return False
    odd = parts.query or parts.fragment or parts.username or any(c.isspace() for c in url)
    return bool(parts.hostname) and not odd


def corpus(folder: str, cache: Any = None) -> str:
    """The resolved folder if it holds at least one readable document, else a UsageError.

    Indexing it here is not wasted: with the run's `cache` (core.context.RunCache) the tools
    reuse the index, and a link out of the folder is reported once, here.
    """
    from agents.tools.corpus import CorpusError, CorpusIndex

    path_given("--corpus", folder)
    path = Path(folder).expanduser().resolve()
    try:
        CorpusIndex.load(path, cache, progress=_tell)
    except CorpusError as exc:
        raise UsageError(f"--corpus: {exc}") from exc
    except OSError as exc:  # e.g. a document without read permission
        raise UsageError(f"--corpus {path}: cannot read a document: {exc}") from exc
    return str(path)


def _tell(line: str) -> None:
    """How far a long corpus indexing got, on stderr, so a big folder is not a silent wait."""
    print(f"corpus: {line}", file=sys.stderr, flush=True)


class ModelServerUnavailable(ConnectionError):
    """Nothing accepts connections at a model spec's base URL (exit 3 through cli.errors)."""


def model_server(spec: str, timeout_s: float = 3.0) -> None:
    """For `provider:model@URL` specs, check that something listens at URL before the run
    starts (a TCP connect, no request): a stopped server fails in a second, with one line,
    instead of after the embedding model has loaded and every retry has run."""
    if "@" not in spec:
        return
    import socket
    from urllib.parse import urlsplit

    try:
        url = urlsplit(spec.split("@", 1)[1])
        port = url.port or (443 if url.scheme == "https" else 80)
    except ValueError as exc:  # e.g. "Invalid IPv6 URL", a port that is not a number
        raise UsageError(f"{spec!r}: the URL after '@' is not valid ({exc})") from None
    if url.scheme not in ("http", "https") or not url.hostname:
        return  # a malformed URL is the model factory's to explain (ModelSpecError)
    try:
        socket.create_connection((url.hostname, port), timeout=timeout_s).close()
    except OSError as exc:
        raise ModelServerUnavailable(
            f"cannot reach the model server for {spec!r} at {url.hostname}:{port}: "
            f"{exc.strerror or exc} (is it running? check the URL after '@')"
        ) from exc


def saved_run(path: Path, saved: Any) -> dict[str, Any]:
    """A run file's content if every setting has its field's type (a hand-edited or damaged
    file fails here, naming the setting, instead of deep inside the run)."""
    if not isinstance(saved, dict) or not isinstance(saved.get("context", {}), dict):
        raise UsageError(f"{path} is not a saved run (expected a JSON object with a context)")
    expected = {"task": str | None, "graph": str, "mcp_file": str}
    wrong = [(k, t) for k, t in expected.items() if k in saved and not _fits(saved[k], t)]
    wrong += _wrong_settings(saved.get("context", {}))
    if wrong:
        name, hint = wrong[0]
        _damaged(path, name, _describe(hint), _value(saved, name))
    _saved_values(path, saved)
    return saved


def _damaged(path: Path, name: str, expected: str, got: Any) -> None:
    raise UsageError(
        f"{path} is damaged or hand-edited: {name!r} should be {expected}, got "
        f"{shown(repr(got))}; fix that value or start a new run"
    )


SAVED_CHOICES = {"graph": ("reflective", "single-path"), "induction": ("rule", "llm", "off")}
SAVED_MINIMUM = {"reflections_k": 0, "workflows_k": 0, "max_concurrency": 0, "induction_every": 1}


def _saved_values(path: Path, saved: dict[str, Any]) -> None:
    """Values of the right type that no run option could have given (those the options give
    are checked again with the options' own messages)."""
    from memory.reflections.manager import namespace_path

    values = {**saved.get("context", {}), **{k: v for k, v in saved.items() if k == "graph"}}
    for name, choices in SAVED_CHOICES.items():
        if name in values and values[name] not in choices:
            _damaged(path, name, " or ".join(map(repr, choices)), values[name])
    for name, low in SAVED_MINIMUM.items():
        if name in values and values[name] < low:
            _damaged(path, name, f"at least {low}", values[name])
    try:
        namespace_path(values.get("memory_namespace", "default"))
        for entry in values.get("allowed_origins", []):
            origin(entry)
    except (ValueError, UsageError) as exc:
        raise UsageError(f"{path} is damaged or hand-edited: {exc}") from exc


def _value(saved: dict[str, Any], name: str) -> Any:
    return saved[name] if name in saved else saved["context"][name]


def _wrong_settings(settings: dict[str, Any]) -> list[tuple[str, Any]]:
    import typing

    from core.context import Context

    hints = typing.get_type_hints(Context)
    return [(k, hints[k]) for k, v in settings.items() if k in hints and not _fits(v, hints[k])]


def _fits(value: Any, hint: Any) -> bool:
    """Whether a JSON value has type `hint` (str, int, float, bool, None, lists, dicts and
    unions of them; any other type is not checked here)."""
    import types
    import typing

    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        return any(_fits(value, arg) for arg in args)
    if hint is type(None):
        return value is None
    if origin is list:
        return isinstance(value, list) and all(_fits(v, args[0]) for v in value)
    if origin is dict or hint is dict:
        return isinstance(value, dict)
    if hint is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if hint in (str, bool):
        return isinstance(value, hint)
    return True


def _describe(hint: Any) -> str:
    import types
    import typing

    names = {str: "text", int: "a whole number", float: "a number", bool: "true or false"}

    def one(arg: Any) -> str:
        if arg is type(None):
            return "null"
        if typing.get_origin(arg) is list:
            return "a list of texts"
        if typing.get_origin(arg) is dict:
            return "an object"
        return names.get(arg, str(arg))

    union = typing.get_origin(hint) in (typing.Union, types.UnionType)
    return " or ".join(one(arg) for arg in (typing.get_args(hint) if union else [hint]))
