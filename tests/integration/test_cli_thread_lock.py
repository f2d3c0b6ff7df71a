"""Two `run --resume ID` of one thread at once, through the real CLI: the second is refused with
one line while the first works, and no task runs twice (cli/thread_lock.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from cli.errors import EXIT_AWAITING_APPROVAL
from tests.conftest import ROOT
from tests.integration.cli_scripted_agent import TASKS

pytestmark = pytest.mark.integration
AGENT = ROOT / "tests" / "integration" / "cli_scripted_agent.py"
CORPUS = ROOT / "examples" / "corpus"
# the corpus gives the executor a tool, so the scripted agent logs each task it executes
OPTIONS = [*"--max-retries 0 --no-browser --embedding-model hashing --corpus".split(), str(CORPUS)]


def _argv(tmp_path, *args: str) -> list[str]:
    home = ["--home", str(tmp_path / "home")]
    return [sys.executable, str(AGENT), str(tmp_path / "logs"), *home, "run", *args]


def _executed(tmp_path) -> list[str]:
    log = tmp_path / "logs" / "executed.log"
    return log.read_text().splitlines() if log.exists() else []


def test_a_second_resume_of_a_running_thread_is_refused(tmp_path) -> None:
    (tmp_path / "logs").mkdir()
    paused = subprocess.run(
        _argv(tmp_path, "Who was Ada Lovelace?", "--approve-plan", *OPTIONS),
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert paused.returncode == EXIT_AWAITING_APPROVAL, paused.stderr
    thread = paused.stderr.split("thread: ", 1)[1].split()[0]
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps({"tasks": TASKS}))
    resume = _argv(tmp_path, "--resume", thread, "--plan", str(plan))
    slow = {**os.environ, "EXECUTE_DELAY_S": "3"}  # the first is still working when we look
    with subprocess.Popen(
        resume, cwd=ROOT, env=slow, stdin=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    ) as first:
        try:
            second, first_err = _second_while_first_works(tmp_path, thread, first)
        finally:
            first.kill()  # a no-op once it finished; ends it if an assertion did not wait
    assert first.returncode == 0, first_err[-3000:]
    assert second.returncode == 2, second.stderr[-3000:]
    errors = [line for line in second.stderr.splitlines() if line.startswith("error:")]
    assert errors == [
        f"error: run {thread} is already running (process {first.pid}): wait for it to finish "
        f"or stop it, then resume it again (reflective-agent run --resume {thread})"
    ], second.stderr
    assert _executed(tmp_path) == TASKS  # each task once
    assert not list((tmp_path / "home" / "runs").glob("*.lock"))  # released


def _second_while_first_works(
    tmp_path, thread: str, first: subprocess.Popen
) -> tuple[subprocess.CompletedProcess, str]:
    """The second resume's result, run while `first` works, and the first's stderr."""
    deadline = time.monotonic() + 120
    while not _executed(tmp_path):
        assert first.poll() is None and time.monotonic() < deadline, first.communicate()[1]
        time.sleep(0.1)
    again = _argv(tmp_path, "--resume", thread)  # as after a Ctrl-C that did not stop the first
    second = subprocess.run(
        again, cwd=ROOT, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=180
    )
    assert first.poll() is None  # the refusal came while the first was working
    return second, first.communicate(timeout=180)[1]
