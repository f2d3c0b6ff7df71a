"""Checks on `run`'s input before anything expensive starts: bounds, thread ids, the corpus.

Each failure raises cli.errors.UsageError (exit 2) with a message that says what to change.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from cli.errors import UsageError

MAX_RETRIES = 10  # 11 attempts per task is already far past where retries stop helping
THREAD_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


def bounded(name: str, value: int, low: int, high: int) -> int:
    """`value` if low <= value <= high, else a UsageError naming the option and its range."""
    if not low <= value <= high:
        raise UsageError(f"{name} must be between {low} and {high}, got {value}")
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
    if value == "*" or (value.startswith(("http://", "https://")) and "/" not in value[8:]):
        return value
    raise UsageError(
        f"--allow-origin {value!r}: give an origin like https://example.org or "
        "http://127.0.0.1:8000 (scheme, host and optional port; '*' allows any)"
    )


def corpus(folder: str, cache: Any = None) -> str:
    """The resolved folder if it holds at least one readable document, else a UsageError.

    Indexing it here is not wasted: with the run's `cache` (core.context.RunCache) the tools
    reuse the index, and a link out of the folder is reported once, here.
    """
    from agents.tools.corpus import CorpusError, CorpusIndex

    path = Path(folder).expanduser().resolve()
    try:
        CorpusIndex.load(path, cache)
    except CorpusError as exc:
        raise UsageError(f"--corpus: {exc}") from exc
    except OSError as exc:  # e.g. a document without read permission
        raise UsageError(f"--corpus {path}: cannot read a document: {exc}") from exc
    return str(path)


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

    url = urlsplit(spec.split("@", 1)[1])
    if url.scheme not in ("http", "https") or not url.hostname:
        return  # a malformed URL is the model factory's to explain (ModelSpecError)
    port = url.port or (443 if url.scheme == "https" else 80)
    try:
        socket.create_connection((url.hostname, port), timeout=timeout_s).close()
    except OSError as exc:
        raise ModelServerUnavailable(
            f"cannot reach the model server for {spec!r} at {url.hostname}:{port}: "
            f"{exc.strerror or exc} (is it running? check the URL after '@')"
        ) from exc
