"""Numbers and paths on the command line: nan, inf, negatives and empty paths are one `error:`
line and exit 2, before anything starts."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import main
from cli import validate
from cli.errors import UsageError
from tests.conftest import ROOT

CASES = [
    (["run", "hi", "--max-seconds", "nan"], "--max-seconds must be positive and finite"),
    (["run", "hi", "--max-seconds", "inf"], "got inf"),
    (["run", "hi", "--max-seconds=-inf"], "got -inf"),
    (["run", "hi", "--max-seconds", "-1"], "--max-seconds must be positive and finite"),
    (["run", "hi", "--max-seconds", "0"], "--max-seconds must be positive and finite"),
    (["run", "hi", "--max-calls", "-3"], "--max-calls must be positive and finite"),
    (["run", "hi", "--max-tokens", "0"], "--max-tokens must be positive and finite"),
    (["run", "hi", "--max-calls", "nan"], "--max-calls: invalid int value: 'nan'"),
    (["run", "hi", "--max-retries", "inf"], "--max-retries: invalid int value: 'inf'"),
    (["run", "hi", "--max-tool-steps", "-2"], "--max-tool-steps must be between 0"),
    (["run", "hi", "--corpus", ""], "--corpus is empty"),
    (["run", "hi", "--corpus", "  "], "--corpus is empty"),
    (["run", "hi", "--mcp", ""], "--mcp is empty"),
    (["run", "--resume", "abc", "--plan", ""], "--plan is empty"),
    (["run", "hi", "--allow-origin", "http://[::1"], "--allow-origin 'http://[::1'"),
    (["run", "hi", "--allow-origin", "http://h:99999"], "give an origin like"),
    (["run", "hi", "--allow-origin", "http://"], "give an origin like"),
    (["run", "hi", "--allow-origin", "http://a b"], "give an origin like"),
    (["browse", ""], "browse: the URL is empty"),
    (["browse", "https://example.org/", "--screenshot", ""], "--screenshot is empty"),
    (["browse", "https://example.org/", "--allow-origin", ""], "--allow-origin is empty"),
    (["browse", "https://example.org/", "--allow-origin", "http://[::1"], "--allow-origin"),
    (["tools", "list", "--corpus", ""], "--corpus is empty"),
    (["memory", "import", ""], "memory import: the file name is empty"),
    (["memory", "export", ""], "memory export: the file name is empty"),
    (["memory", "import", "x.jsonl", "--max-record-bytes", "0"], "--max-record-bytes must be"),
    (["memory", "import", "x.jsonl", "--max-record-bytes", "-5"], "--max-record-bytes must be"),
    (["--home", "", "memory", "list"], "--home is empty"),
    (["--home=", "memory", "list"], "--home is empty"),
]


@pytest.mark.parametrize(("argv", "message"), CASES, ids=[" ".join(c[0]) for c in CASES])
def test_odd_numbers_and_empty_paths_are_one_line_and_exit_2(
    argv: list[str], message: str, tmp_path, capsys
) -> None:
    home = [] if any(a.startswith("--home") for a in argv) else ["--home", str(tmp_path)]
    code = main.main([*home, *argv])
    out, err = capsys.readouterr()
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and message in lines[0], lines
    assert out == ""


def test_a_saved_run_with_a_nan_cap_is_refused_on_resume(tmp_path, capsys) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    saved = {"task": "hi", "graph": "reflective", "context": {"max_seconds": float("nan")}}
    (runs / "abc.json").write_text(json.dumps(saved))  # Python writes NaN, as a hand edit may
    assert main.main(["--home", str(tmp_path), "run", "--resume", "abc"]) == 2
    assert "--max-seconds must be positive and finite, got nan" in capsys.readouterr().err


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -1.0, 0, True])
def test_positive_refuses_what_is_no_cap(value: float) -> None:
    with pytest.raises(UsageError):
        validate.positive("--x", value)


def test_positive_keeps_a_finite_positive_number() -> None:
    assert validate.positive("--x", 0.5) == 0.5 and validate.positive("--x", 3) == 3


@pytest.mark.parametrize(
    "value", ["*", "http://127.0.0.1:8000", "https://example.org/", "http://[::1]:8080"]
)
def test_origins_that_parse_are_kept(value: str) -> None:
    assert validate.origin(value) == value.rstrip("/")


def test_the_real_command_line_refuses_nan_with_exit_2(tmp_path) -> None:
    done = subprocess.run(
        [sys.executable, "main.py", "--home", str(tmp_path), "run", "hi", "--max-seconds", "nan"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines() == ["error: --max-seconds must be positive and finite, got nan"]
