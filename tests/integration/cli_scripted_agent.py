"""`main.py` in a child process with a scripted chat model, for kill-and-resume tests.

    python cli_scripted_agent.py LOG_DIR MAIN_ARGS...

Every executor call appends its task to LOG_DIR/executed.log (flushed and fsynced before the
model answers). With KILL_IN_REFLECT=1 the process kills itself with SIGKILL inside
reflect_on_task, once per task (LOG_DIR/reflections.log counts the reflector's calls across
processes), so each resume gets one task further. With BROWSE_URL set, each task first opens
that page with the real browser tool. With EXECUTE_DELAY_S set, the executor waits that long
after logging a task (a run that is still working when a test looks).
"""

from __future__ import annotations

import os
import re
import signal
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))


import main  # noqa: E402
from cli.shutdown import exit_promptly  # noqa: E402
from core.models import Models  # noqa: E402
from tests.unit.fakes import ScriptedChatModel  # noqa: E402

QUESTION = "Who was Ada Lovelace?"
# a run's tasks: the planner's step, then the request itself (agents/research/decompose_query.py)
TASKS = ["Find the year Ada Lovelace was born", QUESTION]
TASK_LINE = re.compile(r"<task>\n(.*?)\n</task>", re.S)


def _append(path: Path, line: str) -> None:
    with path.open("a", encoding="utf-8") as f:
        f.write(line + "\n")
        f.flush()
        os.fsync(f.fileno())


def _task_in(prompt: str) -> str:
    """The task a prompt is about; past reflections (<ref_i> blocks) name other tasks."""
    prompt = re.sub(r"<ref_(\d+)>.*?</ref_\1>", "", prompt, flags=re.S)
    named = TASK_LINE.search(prompt)  # the task's own line (the request opens every prompt)
    return named.group(1) if named and named.group(1) in TASKS else "?"


def with_tool_steps(argv: list[str]) -> list[str]:
    """A new `run` gets the executor's tool steps and the reflector's verdicts: the script
    calls tools and judges as a remote model does (the default embedded model does neither);
    a resumed run keeps its saved settings."""
    fresh_run = "run" in argv and "--resume" not in argv
    steps = [] if "--max-tool-steps" in argv else ["--max-tool-steps", "3"]
    judge = [] if "--judge" in argv else ["--judge", "model"]
    return [*argv, *steps, *judge] if fresh_run else argv


def _count(path: Path) -> int:
    return len(path.read_text().splitlines()) if path.exists() else 0


# the structured answers that do not depend on the prompt
ANSWERS = {
    "GoalSetting": {
        "goal": "Tell who Ada Lovelace was",
        "answer_form": "a paragraph",
        "criteria": ["her life and work"],
    },
    "DecomposedTasks": {"tasks": TASKS},
    "FinalAnswer": {"answer": "FINAL: Ada Lovelace, born 1815, wrote the first program."},
}


def responder(log_dir: Path):
    def respond(prompt: str, title: str | None, tools: list[str], messages: list) -> object:
        if title == "ReflectionOutput":
            return _reflection(log_dir, prompt)
        if title in ANSWERS:
            return ANSWERS[title]
        if tools:
            return _execution(log_dir, prompt, tools, messages)
        if "Answer the task using only" in prompt:  # the answer from the evidence
            return "Grounded: 1815 (source: ada.md)"
        return "A direct answer, then facts with sources."

    return respond


def _reflection(log_dir: Path, prompt: str) -> dict:
    # Calls 0, 2, 4 die; each resume re-runs the killed reflection (1, 3, 5), which passes, and
    # goes on to the next task's reflection.
    calls = log_dir / "reflections.log"
    seen = _count(calls)
    _append(calls, _task_in(prompt))
    if os.environ.get("KILL_IN_REFLECT") and seen % 2 == 0 and seen < 2 * len(TASKS):
        os.kill(os.getpid(), signal.SIGKILL)
    verdict = {"needs_retry": False, "confidence": 0.9, "reasons": ["sourced"]}
    return {"reflection": "Good enough.", **verdict}


def _execution(log_dir: Path, prompt: str, tools: list[str], messages: list) -> object:
    opened = any(m.type == "tool" for m in messages)
    if os.environ.get("BROWSE_URL") and "browser_open" in tools and not opened:
        return {"tool": "browser_open", "args": {"url": os.environ["BROWSE_URL"]}}
    for m in messages:
        if m.type == "tool" and m.name == "browser_open":
            _append(log_dir / "browsed.log", " ".join(m.text.split())[:200])
    _append(log_dir / "executed.log", _task_in(prompt))
    time.sleep(float(os.environ.get("EXECUTE_DELAY_S", "0")))
    return f"Answer to {_task_in(prompt)}: 1815 (source: ada.md)"


if __name__ == "__main__":
    log = Path(sys.argv[1])
    model = ScriptedChatModel(responder=responder(log), calls=[])
    exit_promptly(main.main(with_tool_steps(sys.argv[2:]), models=Models.fixed(model)))
