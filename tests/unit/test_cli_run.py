"""`main.py run`: bad input is one clear line; --json; a crashed run resumes where it stopped."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

import main
from tests.conftest import ROOT
from tests.unit.test_reflective_graph import TASKS, Script, wire  # noqa: F401  (fixture)


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "main.py", *args], cwd=ROOT, capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["run", "   "], "task is empty"),
        (["run", "hello there", "--model", "nonsense"], "unknown model"),
        (["run", "hello there", "--corpus", "/no/such/dir"], "corpus folder not found"),
        (["run", "--resume", "nope"], "no run 'nope'"),
    ],
)
def test_bad_input_is_one_line_and_nonzero(args, message, tmp_path):
    result = _cli("--home", str(tmp_path), *args)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and message in lines[0]


def test_help_explains_the_options():
    result = _cli("run", "--help")
    assert result.returncode == 0
    for option in ("--model", "--max-retries", "--corpus", "--graph", "--json", "--resume"):
        assert option in result.stdout


def test_json_output(wire, capsys, tmp_path):  # noqa: F811
    wire(Script({0: [True, False]}))  # task 1 retried once
    code = main.main(
        ["--home", str(tmp_path), "run", "Who was Ada Lovelace?", "--json", "--no-browser"]
    )
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert set(out) >= {"final_output", "tasks", "results", "reflections", "llm_calls", "elapsed_s"}
    assert out["final_output"].startswith("FINAL") and len(out["tasks"]) == 3
    assert len(out["reflections"]) == 4
    assert sum(r["judgment"]["needs_retry"] for r in out["reflections"]) == 1
    assert out["llm_calls"] > 10


def test_progress_names_node_task_retry_and_verdict(wire, capsys, tmp_path):  # noqa: F811
    wire(Script({0: [True, False]}))  # task 1 retried once
    main.main(["--home", str(tmp_path), "run", "Who was Ada Lovelace?", "--no-browser"])
    err = capsys.readouterr().err
    assert "[execute_task] task 1/3:" in err
    assert "[reflect_on_task] task 1/3: not good enough -> retry 1/2" in err
    assert "[execute_task] task 1/3, retry 1/2:" in err
    assert "[reflect_on_task] task 3/3: good enough" in err and "thread:" in err


class Crash(Exception):
    pass


def test_interrupted_run_resumes_without_redoing_tasks(wire, capsys, tmp_path):  # noqa: F811
    script = Script([False] * 10)
    executed: list[str] = []

    def crashing(prompt, title, tools, messages):
        if tools and "<task>\n" in prompt and not any(m.type == "tool" for m in messages):
            task = re.search(r"<task>\n(.*?)\n</task>", prompt, re.S).group(1)
            if task == TASKS[1] and not crashing.resumed:
                raise Crash("power cut during task 2")  # outlasts the node's own retries too
            executed.append(task)
        return script(prompt, title, tools, messages)

    crashing.resumed = False
    wire(crashing)
    home = str(tmp_path)
    with pytest.raises(Crash):
        main.main(["--home", home, "run", "Who was Ada Lovelace?", "--no-browser"])
    thread = capsys.readouterr().err.split("thread: ", 1)[1].split()[0]

    crashing.resumed = True
    assert main.main(["--home", home, "run", "--resume", thread, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["final_output"].startswith("FINAL")
    # tasks 1 and 3 ran once, beside the crash; after resuming only task 2 runs (tasks are
    # parallel, so the order varies)
    assert sorted(executed) == sorted(TASKS)
