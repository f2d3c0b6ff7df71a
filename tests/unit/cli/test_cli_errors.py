"""Every failure is one `error:` line and a documented exit code; -v adds the traceback;
--json adds an error object on stdout. Typed errors of every layer are mapped in one place."""

from __future__ import annotations

import io
import json
import sys
import types

import httpx
import openai
import pytest
from langchain_openai.chat_models.base import OpenAIConnectionError
from langgraph.errors import GraphRecursionError

import main
from agents.tools.corpus import CorpusError
from browser.chromium import BrowserUnavailable
from cli import commands, errors
from cli.shutdown import Terminated
from core.local_model import LocalModelUnavailable
from core.models import ModelSpecError


class MemoryStoreError(RuntimeError):
    """Stands for memory's typed error: the mapping goes by class name along the MRO."""


class IndexDamaged(MemoryStoreError):
    pass


def _connection_error() -> OpenAIConnectionError:
    request = httpx.Request("POST", "http://127.0.0.1:9/v1/chat/completions")
    return OpenAIConnectionError(request=request)


def _wrapped(inner: BaseException) -> RuntimeError:
    try:
        try:
            raise inner
        except BaseException as exc:
            raise RuntimeError("node failed") from exc
    except RuntimeError as outer:
        return outer


@pytest.mark.parametrize(
    ("exc", "kind", "code"),
    [
        (errors.UsageError("bad"), "bad_input", 2),
        (ModelSpecError("unknown model 'x'"), "bad_input", 2),
        (CorpusError("corpus folder /x has no documents"), "bad_input", 2),
        (LocalModelUnavailable("pip install ..."), "unavailable", 3),
        (BrowserUnavailable("chromium not found"), "unavailable", 3),
        (_connection_error(), "unavailable", 3),
        (openai.APITimeoutError(request=httpx.Request("POST", "http://h/v1")), "unavailable", 3),
        (MemoryStoreError("damaged: run memory repair"), "memory_store_damaged", 4),
        (IndexDamaged("index checksum mismatch"), "memory_store_damaged", 4),
        (GraphRecursionError("Recursion limit of 25 reached"), "run_failed", 1),
        (errors.CommandFailed("no workflow named 'x'"), "run_failed", 1),
        (KeyboardInterrupt(), "interrupted", 130),
        (Terminated(), "terminated", 143),
        (ZeroDivisionError("division by zero"), "internal", 5),
        (_wrapped(LocalModelUnavailable("not installed")), "unavailable", 3),  # via the cause
    ],
)
def test_each_error_maps_to_its_exit_code(exc, kind, code):
    failure = errors.classify(exc)
    assert (failure.type, failure.exit_code) == (kind, code)
    assert "\n" not in failure.message and failure.message


def test_a_bug_while_handling_a_typed_error_is_still_a_bug():
    try:
        try:
            raise ModelSpecError("unknown model")
        except ModelSpecError:
            raise TypeError("bug in the handler")  # noqa: B904 (the point of the test)
    except TypeError as exc:
        assert errors.classify(exc).exit_code == 5


def test_messages_say_what_to_do():
    assert errors.classify(KeyboardInterrupt()).message == "interrupted"
    hint = errors.classify(KeyboardInterrupt("resume with: main.py run --resume abc"))
    assert hint.message == "interrupted (resume with: main.py run --resume abc)"
    assert errors.classify(Terminated()).message == "terminated by SIGTERM"
    hint = errors.classify(Terminated("resume with: main.py run --resume abc"))
    assert hint.message == "terminated by SIGTERM (resume with: main.py run --resume abc)"
    assert "127.0.0.1:9" in errors.classify(_connection_error()).message
    assert "is it running" in errors.classify(_connection_error()).message
    recursion = errors.classify(GraphRecursionError("Recursion limit of 25 reached"))
    assert "--max-retries" in recursion.message
    internal = errors.classify(ZeroDivisionError("division by zero"))
    assert "ZeroDivisionError: division by zero" in internal.message and "-v" in internal.message


def test_report_is_one_line_without_traceback():
    err, out = io.StringIO(), io.StringIO()
    code = errors.report(ModelSpecError("unknown model\n'x'"), err=err, out=out)
    assert code == 2 and out.getvalue() == ""
    assert err.getvalue() == "error: unknown model 'x'\n"


def test_verbose_report_adds_the_traceback():
    err = io.StringIO()
    errors.report(_wrapped(ZeroDivisionError("boom")), verbose=True, err=err, out=io.StringIO())
    text = err.getvalue()
    assert "Traceback (most recent call last)" in text and "ZeroDivisionError: boom" in text
    assert text.strip().splitlines()[-1].startswith("error: unexpected error: RuntimeError")


def test_json_report_is_an_error_object_on_stdout():
    out = io.StringIO()
    code = errors.report(
        IndexDamaged("run memory repair"), as_json=True, err=io.StringIO(), out=out
    )
    body = json.loads(out.getvalue())
    assert body == {
        "error": {
            "type": "memory_store_damaged",
            "exception": "IndexDamaged",
            "message": "run memory repair",
            "exit_code": 4,
        }
    }
    assert code == 4


@pytest.fixture
def command(monkeypatch):
    """A `boom` command whose handler raises what the test puts in `raise_`."""
    module = types.ModuleType("cli_test_boom")
    module.raise_ = None

    def handler(args):
        raise module.raise_

    def register(subparsers):
        p = subparsers.add_parser("boom")
        p.add_argument("--json", action="store_true")
        p.set_defaults(func=handler)

    module.register = register
    monkeypatch.setitem(sys.modules, "cli_test_boom", module)
    monkeypatch.setitem(commands.COMMANDS, "boom", commands.Command("cli_test_boom", "test"))
    return module


@pytest.mark.parametrize(
    ("exc", "code"),
    [
        (GraphRecursionError("limit"), 1),
        (LocalModelUnavailable("pip install it"), 3),
        (MemoryStoreError("the store at /h/memory is damaged"), 4),
        (KeyboardInterrupt(), 130),
        (Terminated(), 143),
        (ValueError("a bug"), 5),
    ],
)
def test_main_maps_handler_failures(command, exc, code, capsys, tmp_path):
    command.raise_ = exc
    assert main.main(["--home", str(tmp_path), "boom"]) == code
    captured = capsys.readouterr()
    assert captured.out == ""
    assert len(captured.err.strip().splitlines()) == 1
    assert captured.err.startswith("error: ") and "Traceback" not in captured.err


def test_main_json_error_wherever_json_is_given(command, capsys, tmp_path):
    command.raise_ = LocalModelUnavailable("pip install it")
    for argv in (["--json", "boom"], ["boom", "--json"]):
        assert main.main(["--home", str(tmp_path), *argv]) == 3
        error = json.loads(capsys.readouterr().out)["error"]
        assert error["exit_code"] == 3 and error["message"] == "pip install it"


def test_main_verbose_prints_the_traceback(command, capsys, tmp_path):
    command.raise_ = ValueError("a bug")
    assert main.main(["--home", str(tmp_path), "boom", "-v"]) == 5
    err = capsys.readouterr().err
    assert "Traceback (most recent call last)" in err and "ValueError: a bug" in err


def test_usage_errors_are_one_line_and_json_too(capsys, tmp_path):
    assert main.main(["--home", str(tmp_path), "--json", "nonsense"]) == 2
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1 and "invalid choice: 'nonsense'" in captured.err
    assert json.loads(captured.out)["error"]["type"] == "bad_input"


def test_an_unusable_home_is_bad_input(capsys, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    assert main.main(["--home", str(blocker / "home"), "workflows", "list"]) == 2
    assert "data directory (--home)" in capsys.readouterr().err


def test_a_damaged_memory_store_is_exit_4_with_the_fix(capsys, tmp_path):
    argv = ["--home", str(tmp_path), "memory", "list", "--embedding-model", "hashing"]
    assert main.main(argv) == 0
    capsys.readouterr()
    for part in (tmp_path / "memory").iterdir():
        part.write_bytes(b"not a database, not at all" * 10)
    assert main.main([*argv, "--json"]) == 4
    captured = capsys.readouterr()
    (line,) = captured.err.strip().splitlines()
    assert line.startswith("error: memory store") and "memory repair" in line
    assert json.loads(captured.out)["error"]["type"] == "memory_store_damaged"


def test_a_damaged_checkpoint_file_is_exit_4_with_the_fix(tmp_path):
    from cli.execution import open_checkpoints
    from memory.engine.errors import MemoryStoreDamagedError

    conn, _ = open_checkpoints(tmp_path)  # a fresh file is set up and usable
    conn.close()
    (tmp_path / "checkpoints.sqlite").write_bytes(b"not a database, not at all" * 200)
    with pytest.raises(MemoryStoreDamagedError) as caught:
        open_checkpoints(tmp_path)
    failure = errors.classify(caught.value)
    assert (failure.type, failure.exit_code) == ("memory_store_damaged", 4)
    assert "checkpoints.sqlite" in failure.message and "mv " in failure.message
