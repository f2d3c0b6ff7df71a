"""`main.py run`: bad input is one clear line; --json; a crashed run resumes where it stopped;
the step limit fits tasks × attempts; steps are checkpointed synchronously."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
import time

import pytest

import main
from tests.conftest import ROOT
from tests.unit.research_script import QUESTION, STEPS, TASKS, Script, wire  # noqa: F401  (fixture)


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "main.py", *args], cwd=ROOT, capture_output=True, text=True, timeout=120
    )


def _main(capsys, *args: str) -> subprocess.CompletedProcess:
    """main() in this process (fast); the same fields as a finished subprocess."""
    code = main.main(list(args))
    captured = capsys.readouterr()
    return subprocess.CompletedProcess(args, code, captured.out, captured.err)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["run", "   "], "task is empty"),
        (["run", "hello there", "--model", "nonsense"], "unknown model"),
        (["run", "hello there", "--corpus", "/no/such/dir"], "/no/such/dir does not exist"),
        (["run", "--resume", "nope"], "no run 'nope'"),
        (["run", "--resume", "../../x"], "invalid thread id '../../x'"),
        (["run", "--resume", "a" * 65], "invalid thread id"),
        (["run", "--resume", "abc", "a task too"], "not both"),
        (["run", "hello there", "--max-retries", "1000000"], "--max-retries must be between 0"),
        (["run", "hello there", "--max-retries", "-1"], "--max-retries must be between 0"),
        (["run", "hello there", "--max-tool-steps", "-1"], "--max-tool-steps must be between 0"),
        (["run", "hello there", "--max-tool-steps", "51"], "--max-tool-steps must be between 0"),
        (["run", "hello there", "--max-retries", "x"], "invalid int value: 'x'"),
        (["run", "hello", "--model", "openai:x@ftp://h/v1"], "must start with http"),
        (["run", "hello", "--allow-origin", "ftp://h"], "--allow-origin 'ftp://h'"),
        (["run", "hello", "--allow-origin", "http://h/path"], "give an origin like"),
    ],
)
def test_bad_input_is_one_line_and_nonzero(args, message, tmp_path, capsys):
    result = _main(capsys, "--home", str(tmp_path), *args)
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and message in lines[0], lines
    assert result.stdout == ""


def test_resume_never_reads_outside_the_data_directory(tmp_path, capsys):
    home = tmp_path / "home"
    (tmp_path / "x.json").write_text('{"task": "stolen", "context": {}}')
    (home / "runs").mkdir(parents=True)
    result = _main(capsys, "--home", str(home), "--json", "run", "--resume", "../x")
    assert result.returncode == 2
    assert json.loads(result.stdout)["error"]["type"] == "bad_input"
    assert "stolen" not in result.stdout + result.stderr


@pytest.mark.parametrize(
    ("files", "message"),
    [
        ({}, "has no documents"),
        ({"notes.pdf": "binary"}, "has no documents"),  # nothing the corpus can read
        ({"empty.md": "   \n"}, "no text in them"),
    ],
)
def test_corpus_needs_a_readable_document(files, message, tmp_path, capsys):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for name, text in files.items():
        (corpus / name).write_text(text)
    result = _main(capsys, "--home", str(tmp_path / "home"), "run", "hi", "--corpus", str(corpus))
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0] and str(corpus) in lines[0]


def test_closed_model_server_is_one_line_exit_3_within_seconds(tmp_path):
    with socket.socket() as s:  # bind then close: nothing listens on this port afterwards
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    started = time.monotonic()
    model = f"openai:x@http://127.0.0.1:{port}/v1"
    result = _cli("--home", str(tmp_path), "run", "Who?", "--json", "--model", model)
    assert time.monotonic() - started < 10
    assert result.returncode == 3
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: cannot reach the model server")
    assert f"127.0.0.1:{port}" in lines[0] and "Traceback" not in result.stderr
    error = json.loads(result.stdout)["error"]
    assert error["exit_code"] == 3 and error["type"] == "unavailable"


def test_help_explains_the_options():
    result = _cli("run", "--help")
    assert result.returncode == 0
    for option in ("--model", "--max-retries", "--corpus", "--graph", "--json", "--resume"):
        assert option in result.stdout


def test_json_output(wire, capsys, tmp_path):  # noqa: F811
    wire(Script({0: [True, False]}))  # task 1 retried once
    code = main.main(
        [
            "--home",
            str(tmp_path),
            "run",
            "Who was Ada Lovelace?",
            "--json",
            "--no-browser",
            "--judge",
            "model",
        ],
        models=wire.models,
        tools=wire.tools,
    )
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert set(out) >= {"final_output", "tasks", "results", "reflections", "llm_calls", "elapsed_s"}
    assert out["final_output"].startswith("FINAL") and len(out["tasks"]) == 3
    assert len(out["reflections"]) == 4
    assert sum(r["judgment"]["needs_retry"] for r in out["reflections"]) == 1
    assert out["llm_calls"] > 10
    # each call profiled, under the node that made it
    assert len(out["calls"]) == out["llm_calls"]
    assert {"goal_setting", "decompose_query", "reflect_on_task"} <= {
        c["node"] for c in out["calls"]
    }
    assert all(c["seconds"] >= 0 and "prompt_tokens" in c for c in out["calls"])
    # a new home: what reached its prompts, it learned itself (its lessons, its workflow)
    own = {r["id"] for r in out["reflections"]}
    assert out["recalled"] and {i for i in out["recalled"] if ":" not in i} <= own


def test_progress_names_node_task_retry_and_verdict(wire, capsys, tmp_path):  # noqa: F811
    wire(Script({0: [True, False]}))  # task 1 retried once
    main.main(
        [
            "--home",
            str(tmp_path),
            "run",
            "Who was Ada Lovelace?",
            "--no-browser",
            "--judge",
            "model",
        ],
        models=wire.models,
        tools=wire.tools,
    )
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
    assert (
        main.main(
            ["--home", home, "run", "Who was Ada Lovelace?", "--no-browser", *STEPS],
            models=wire.models,
            tools=wire.tools,
        )
        == 5
    )
    err = capsys.readouterr().err
    assert "error: unexpected error: Crash: power cut during task 2" in err
    assert "Traceback" not in err
    thread = err.split("thread: ", 1)[1].split()[0]

    crashing.resumed = True
    assert (
        main.main(
            ["--home", home, "run", "--resume", thread, "--json"],
            models=wire.models,
            tools=wire.tools,
        )
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert out["final_output"].startswith("FINAL")
    # tasks 1 and 3 ran once, beside the crash; after resuming only task 2 runs (tasks are
    # parallel, so the order varies)
    assert sorted(executed) == sorted(TASKS)


def test_step_limit_fits_every_attempt_of_every_task(wire, capsys, tmp_path):  # noqa: F811
    wire(Script([True] * 100))  # never good enough: every task uses all its attempts
    code = main.main(
        [
            "--home",
            str(tmp_path),
            "run",
            QUESTION,
            "--max-retries",
            "10",
            "--no-browser",
            "--json",
            "--judge",
            "model",
        ],
        models=wire.models,
        tools=wire.tools,
    )
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and len(out["reflections"]) == 3 * 11


def test_step_limit_grows_with_attempts():
    from cli.execution import recursion_limit

    assert recursion_limit(0, 5) < recursion_limit(2, 5) < recursion_limit(10, 5)
    assert recursion_limit(2, 3) < recursion_limit(2, 5)
    # goal + decompose + aggregate, and per task: attempts × (execute, reflect) + next task
    assert recursion_limit(10, 5) >= 3 + 5 * (11 * 2 + 1)


def test_runs_stream_with_synchronous_durability(wire, monkeypatch, tmp_path):  # noqa: F811
    from langgraph.pregel import Pregel

    seen: list[object] = []
    real_stream = Pregel.stream

    def spy(self, *args, **kwargs):
        seen.append(kwargs.get("durability"))
        return real_stream(self, *args, **kwargs)

    monkeypatch.setattr(Pregel, "stream", spy)
    wire(Script([False] * 3))
    assert (
        main.main(
            ["--home", str(tmp_path), "run", "Who?", "--no-browser"],
            models=wire.models,
            tools=wire.tools,
        )
        == 0
    )
    assert seen and seen[0] == "sync"


def test_allowed_origins_reach_the_run_context(wire, tmp_path):  # noqa: F811
    wire(Script([False] * 3))
    argv = ["--home", str(tmp_path), "run", "Who?", "--no-browser"]
    argv += ["--allow-origin", "http://127.0.0.1:8000/", "--allow-origin", "https://example.org"]
    assert main.main(argv, models=wire.models, tools=wire.tools) == 0
    (saved,) = (tmp_path / "runs").glob("*.json")
    context = json.loads(saved.read_text())["context"]
    assert context["allowed_origins"] == ["http://127.0.0.1:8000", "https://example.org"]
