"""Plan approval across a process restart: `run --approve-plan` with no terminal prints the plan
and exits 7; a new process answers it with `run --resume ID --plan FILE` from the checkpoint."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from cli.errors import EXIT_AWAITING_APPROVAL, EXIT_FAILED
from tests.conftest import ROOT
from tests.integration.cli_scripted_agent import TASKS

pytestmark = pytest.mark.integration
AGENT = ROOT / "tests" / "integration" / "cli_scripted_agent.py"
CORPUS = ROOT / "examples" / "corpus"
# the corpus gives the executor a tool, so the scripted agent logs each task it executes
OPTIONS = [*"--max-retries 0 --no-browser --embedding-model hashing --corpus".split(), str(CORPUS)]


def _run(tmp_path, *args: str) -> subprocess.CompletedProcess:
    """`main.py run ARGS` in a new process, with no terminal (stdin is /dev/null)."""
    argv = [str(AGENT), str(tmp_path / "logs"), "--home", str(tmp_path / "home"), "run", *args]
    return subprocess.run(
        [sys.executable, *argv],
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=180,
    )


def _executed(tmp_path) -> list[str]:
    log = tmp_path / "logs" / "executed.log"
    return log.read_text().splitlines() if log.exists() else []


@pytest.fixture
def paused(tmp_path):
    """A run paused on its plan by a process that has exited: (thread id, the printed plan)."""
    (tmp_path / "logs").mkdir()
    first = _run(tmp_path, "Who was Ada Lovelace?", "--approve-plan", *OPTIONS)
    assert first.returncode == EXIT_AWAITING_APPROVAL, first.stderr
    thread = first.stderr.split("thread: ", 1)[1].split()[0]
    assert f"--resume {thread} --plan FILE" in first.stderr
    assert _executed(tmp_path) == []  # nothing ran before the plan was approved
    return thread, json.loads(first.stdout)


def test_a_new_process_runs_the_edited_plan(tmp_path, paused):
    thread, plan = paused
    assert plan["tasks"] == TASKS and plan["goal"].startswith("Tell who Ada Lovelace was")
    edited = tmp_path / "plan.json"
    edited.write_text(json.dumps({"tasks": [TASKS[1]]}))  # the person keeps only the second

    done = _run(tmp_path, "--resume", thread, "--plan", str(edited), "--json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["tasks"] == [TASKS[1]] and out["final_output"].startswith("FINAL")
    assert _executed(tmp_path) == [TASKS[1]]


def test_a_new_process_cancels_the_plan(tmp_path, paused):
    thread, _ = paused
    cancel = tmp_path / "cancel.json"
    cancel.write_text('{"cancel": true}')

    done = _run(tmp_path, "--resume", thread, "--plan", str(cancel), "--json")
    assert done.returncode == EXIT_FAILED, done.stderr
    out = json.loads(done.stdout)
    assert out["stopped"] == "cancelled" and out["final_output"] == ""
    assert "cancelled" in done.stderr
    assert _executed(tmp_path) == []
