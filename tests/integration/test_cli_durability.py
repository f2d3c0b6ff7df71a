"""Kill -9 inside reflect_on_task, resume: a finished execute_task never runs again.

The CLI streams with durability="sync", so the step that finished execute_task is in the
checkpoint (SQLite) before reflect_on_task starts. A child process runs `main.py run` with a
scripted model that SIGKILLs itself once per task inside the reflector; each resume gets one
task further.
"""

from __future__ import annotations

import collections
import json
import os
import signal
import subprocess
import sys

import pytest

from tests.conftest import ROOT
from tests.integration.cli_scripted_agent import TASKS

pytestmark = pytest.mark.integration
AGENT = ROOT / "tests" / "integration" / "cli_scripted_agent.py"


def _run(log_dir, home, *args: str) -> subprocess.CompletedProcess:
    argv = ["--home", str(home), "run", *args]
    return subprocess.run(
        [sys.executable, str(AGENT), str(log_dir), *argv],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=180,
        env={**os.environ, "KILL_IN_REFLECT": "1"},
    )


def test_killed_runs_resume_without_rerunning_finished_tasks(tmp_path):
    home, logs = tmp_path / "home", tmp_path / "logs"
    logs.mkdir()
    options = "--max-retries 0 --no-browser --embedding-model hashing".split()
    corpus = ["--corpus", str(ROOT / "examples" / "corpus")]
    first = _run(logs, home, "Who was Ada Lovelace?", *options, *corpus)
    assert first.returncode == -signal.SIGKILL, first.stderr
    thread = first.stderr.split("thread: ", 1)[1].split()[0]
    kills, done = 1, None
    for _ in range(len(TASKS)):
        done = _run(logs, home, "--resume", thread, "--json")
        if done.returncode != -signal.SIGKILL:
            break
        kills += 1
    assert kills == len(TASKS)  # one kill inside each task's reflection
    assert done is not None and done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["final_output"].startswith("FINAL")
    executed = collections.Counter((logs / "executed.log").read_text().splitlines())
    print(f"\nCLI kill -9 in reflect_on_task: {kills} kills, executions per task {dict(executed)}")
    assert executed == {task: 1 for task in TASKS}  # no finished execute_task ran twice
