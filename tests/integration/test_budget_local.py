"""Run budgets on the embedded test model: `run --max-calls 3` stops at the cap with a partial
answer (exit 6, "stopped" in --json, never more calls than the cap), and `run --resume ID
--max-calls 50` finishes the run from its checkpoint without setting its goal again."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from cli.errors import EXIT_OK, EXIT_PARTIAL
from core.model_catalogue import TEST_MODEL
from tests.conftest import ROOT

pytestmark = pytest.mark.integration
CORPUS = ROOT / "examples" / "corpus"
QUESTION = "Who created Wallace and Gromit?"


def _run(home, *args: str) -> subprocess.CompletedProcess:
    argv = [sys.executable, str(ROOT / "main.py"), "--home", str(home), "run", *args, "--json"]
    return subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=900)


def _done(out: dict) -> int:
    return sum(1 for r in out["results"] if r is not None)


def test_a_call_cap_stops_with_a_partial_answer_and_resume_finishes(tmp_path):
    options = ["--model", f"local:{TEST_MODEL}", "--corpus", str(CORPUS), "--no-browser"]
    options += ["--max-retries", "0", "--embedding-model", "hashing"]
    first = _run(tmp_path, QUESTION, *options, "--max-calls", "3")
    assert first.returncode == EXIT_PARTIAL, first.stderr
    stopped = json.loads(first.stdout)
    assert stopped["stopped"] == "max_calls" and stopped["partial"] is True
    assert stopped["llm_calls"] == 3  # the cap holds: every call checked before it starts
    assert stopped["final_output"].strip()  # answered from what the run had
    assert not stopped["tasks"] or _done(stopped) < len(stopped["tasks"])
    assert "partial answer" in first.stderr and "reached its --max-calls cap" in first.stderr

    resumed = _run(tmp_path, "--resume", stopped["thread_id"], "--max-calls", "50")
    assert resumed.returncode == EXIT_OK, resumed.stderr
    out = json.loads(resumed.stdout)
    assert out["stopped"] is None and out["partial"] is False
    assert out["tasks"] and _done(out) == len(out["tasks"])  # researched to the end
    assert out["final_output"].strip()
    assert "[goal_setting]" not in resumed.stderr  # it goes on where it stopped
    print(
        f"\nbudget on {TEST_MODEL}: stopped after {stopped['llm_calls']} calls with "
        f"{_done(stopped)}/{len(stopped['tasks'])} tasks; resumed with {out['llm_calls']} calls"
    )
