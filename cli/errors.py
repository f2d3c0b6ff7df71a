"""Exit codes and the one place that turns any failure into one `error:` line (or JSON object).

Exit codes (also shown at the end of `--help`):
    0    ok
    1    the run failed or gave no answer (e.g. it needed more steps than its limit)
    2    bad input: options, arguments, files, model specs, corpus folders, thread ids
    3    a model, model server, browser or search service is unavailable (not installed,
         not reachable, refused the credentials)
    4    the memory store is damaged (see the `memory check` / `memory repair` commands)
    5    an unexpected error, i.e. a bug: rerun with -v for the traceback and report it
    6    the run stopped at a budget cap (--max-calls/--max-tokens/--max-seconds); its answer
         is partial (`run --resume ID` continues it)
    7    the run waits for its plan to be approved (`run --resume ID --plan FILE` answers)
    130  interrupted (Ctrl-C)
    143  terminated (SIGTERM, while `run` or `tools list` works; 128 + 15, as a process ended
         by the signal itself would report, so a supervisor tells its own stop from Ctrl-C)

Lower layers raise their own typed errors and never print; `report()` maps them here by class
name along the exception's MRO and its cause chain, so nothing is imported to classify an error
(cheap, and a class that a layer adds later is recognised by its name):
    *Unavailable (LocalModelUnavailable, BrowserUnavailable, ModelUnavailable, ...)  -> 3
    MemoryStoreError and subclasses                                                   -> 4
    UsageError, ModelSpecError, CorpusError, ... (BAD_INPUT below)                    -> 2
    openai/httpx connection, timeout and authentication errors                        -> 3
    GraphRecursionError, CommandFailed -> 1;  KeyboardInterrupt -> 130 (its subclass
    cli.shutdown.Terminated -> 143);  anything else -> 5
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # typing itself is not imported: this module loads for every --help
if TYPE_CHECKING:
    from typing import TextIO

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_UNAVAILABLE = 3
EXIT_STORE = 4
EXIT_INTERNAL = 5
EXIT_PARTIAL = 6
EXIT_AWAITING_APPROVAL = 7
EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 143

EXIT_CODES_HELP = """exit codes:
  0    ok
  1    the run failed or gave no answer
  2    bad input (options, files, model spec, corpus, thread id)
  3    a model, server, browser or search service is unavailable
  4    the memory store is damaged (try: memory check / memory repair)
  5    unexpected error (a bug): rerun with -v for the traceback
  6    stopped at a budget cap: the answer is partial (continue with run --resume ID)
  7    waiting for plan approval (answer with run --resume ID --plan FILE)
  130  interrupted (Ctrl-C)
  143  terminated (SIGTERM)
with --json, a failure prints {"error": {"type", "exception", "message", "exit_code"}} on stdout"""

BAD_INPUT = frozenset(
    {
        "UsageError",
        "ModelSpecError",
        "ModelNotFoundError",  # the server answers but does not serve that model name
        "CorpusError",
        "ImportFileError",
        "JsonFileError",  # core.jsonfile: a JSON file missing, a folder, not JSON, too deep
        "JsonTooDeep",
        "EmbedderMismatchError",
        "WebArenaConfigError",
        "HotpotDataError",
    }
)
# Third-party errors that mean "the model server cannot be used right now": langchain-core's
# typed model errors (langchain-openai raises subclasses), openai's and httpx's own.
UNREACHABLE = frozenset(
    {
        "ModelConnectionError",
        "ModelTimeoutError",
        "ModelAuthenticationError",
        "ModelPermissionDeniedError",
        "ModelRateLimitError",
        "ModelAPIError",
        "APIConnectionError",  # openai: refused, DNS, TLS (APITimeoutError is a subclass)
        "AuthenticationError",  # openai: missing or wrong key
        "PermissionDeniedError",  # openai
        "ConnectError",  # httpx
        "ConnectTimeout",  # httpx
        "ConnectionRefusedError",
    }
)
MAX_MESSAGE = 600


class UsageError(ValueError):
    """Bad input from the command line; the message says what to change."""


class CommandFailed(RuntimeError):
    """The command ran but could not do what was asked (e.g. no such item): exit 1."""


class Failure:
    """What the user is told: a category, the exit code, a one-line message, the class name."""

    def __init__(self, type: str, exit_code: int, message: str, exception: str) -> None:
        self.type, self.exit_code = type, exit_code
        self.message, self.exception = message, exception

    def to_json(self) -> dict[str, object]:
        return {
            "type": self.type,
            "exception": self.exception,
            "message": self.message,
            "exit_code": self.exit_code,
        }


def _category(exc: BaseException) -> tuple[str, int] | None:
    names = [cls.__name__ for cls in type(exc).__mro__]
    if "KeyboardInterrupt" in names:
        if "Terminated" in names:  # cli.shutdown: SIGTERM, taken as Ctrl-C is
            return "terminated", EXIT_TERMINATED
        return "interrupted", EXIT_INTERRUPTED
    if "MemoryStoreError" in names:
        return "memory_store_damaged", EXIT_STORE
    if any(n.endswith("Unavailable") for n in names) or UNREACHABLE.intersection(names):
        return "unavailable", EXIT_UNAVAILABLE
    if BAD_INPUT.intersection(names):
        return "bad_input", EXIT_USAGE
    if "GraphRecursionError" in names or "CommandFailed" in names:
        return "run_failed", EXIT_FAILED
    return None


def _chain(exc: BaseException) -> list[BaseException]:
    """The exception and its explicit causes (`raise ... from`), outermost first: wrappers
    often hide the real cause. An implicit __context__ is not followed: a bug raised while
    handling a typed error must still be reported as a bug."""
    seen: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in seen and len(seen) < 12:
        seen.append(current)
        current = current.__cause__
    return seen


def _one_line(text: str) -> str:
    # Bytes that were not UTF-8 (lone surrogates) as escapes: printable, and JSON-encodable.
    text = " ".join(text.encode("utf-8", "backslashreplace").decode("utf-8").split())
    return text if len(text) <= MAX_MESSAGE else text[: MAX_MESSAGE - 1] + "…"


def _message(exc: BaseException, category: str) -> str:
    text = str(exc).strip()
    names = {cls.__name__ for cls in type(exc).__mro__}
    if category in ("interrupted", "terminated"):
        said = "interrupted" if category == "interrupted" else "terminated by SIGTERM"
        return f"{said} ({text})" if text else said
    if UNREACHABLE.intersection(names):
        url = getattr(getattr(exc, "request", None), "url", None)
        where = f" at {url}" if url else ""
        return f"cannot use the model server{where}: {text} (is it running? is the key right?)"
    if "GraphRecursionError" in names:
        return (
            "the run needed more steps than its limit allows and was stopped; "
            "try fewer --max-retries or a simpler task"
        )
    return text or type(exc).__name__


def classify(exc: BaseException) -> Failure:
    """The Failure to report for `exc`: the first typed error along its cause chain wins."""
    for link in _chain(exc):
        found = _category(link)
        if found:
            category, code = found
            return Failure(category, code, _one_line(_message(link, category)), type(link).__name__)
    text = _one_line(f"{type(exc).__name__}: {exc}")
    return Failure(
        "internal", EXIT_INTERNAL, f"unexpected error: {text} (rerun with -v)", type(exc).__name__
    )


def report(
    exc: BaseException,
    *,
    verbose: bool = False,
    as_json: bool = False,
    err: TextIO | None = None,
    out: TextIO | None = None,
) -> int:
    """Print `exc` as one `error:` line on stderr (and a JSON object on stdout with --json).

    The traceback is printed only with `verbose`. Returns the exit code.
    """
    err = err or sys.stderr
    out = out or sys.stdout
    failure = classify(exc)
    if verbose and failure.type not in ("interrupted", "terminated"):
        import traceback

        traceback.print_exception(exc, file=err)
    print(f"error: {failure.message}", file=err, flush=True)
    if as_json:
        import json

        print(json.dumps({"error": failure.to_json()}, ensure_ascii=False), file=out, flush=True)
    return failure.exit_code
