"""Plan approval at the command line: show the plan a run paused on and get the person's answer.

In a terminal the plan is shown on stderr with a question: accept, edit (the tasks, one per
line, in $VISUAL / $EDITOR) or cancel. With --json or no terminal the CLI prints the pause
instead and exits with EXIT_AWAITING_APPROVAL; `run --resume ID --plan FILE` answers it, FILE
being JSON ({"tasks": [...]} or {"cancel": true}; the printed pause itself accepts the plan) or
plain text, one task per line.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from cli.errors import UsageError

EDIT_HEADER = "# One task per line; lines starting with '#' are ignored. Save and quit to run it.\n"


def read_plan(path: str) -> dict[str, Any]:
    """The resume value in FILE: JSON as it is, plain text as one task per line."""
    from core.jsonfile import JsonFileError, JsonTooDeep, loads, read_text

    file = Path(path).expanduser()
    try:
        text = read_text(file, "--plan")
    except JsonFileError as exc:  # missing, a folder, unreadable, not UTF-8
        raise UsageError(str(exc)) from exc
    try:
        value = loads(text)
    except json.JSONDecodeError:
        return {"tasks": tasks_in(text)}
    except JsonTooDeep as exc:
        raise UsageError(f"--plan {file} is {exc}") from exc
    if not isinstance(value, dict) or not ("tasks" in value or value.get("cancel") is True):
        raise UsageError(f'--plan {file}: expected {{"tasks": [...]}} or {{"cancel": true}}')
    if value.get("cancel") is True:
        return {"cancel": True}
    answer = {"tasks": value["tasks"]}
    if "depends_on" in value:
        answer["depends_on"] = value["depends_on"]
    return answer


def tasks_in(text: str) -> list[str]:
    """The non-empty, non-comment lines of `text`."""
    lines = (line.strip() for line in text.splitlines())
    return [line for line in lines if line and not line.startswith("#")]


def interactive(out: Any = None, inp: Any = None) -> bool:
    """Can the CLI ask a person (stdin and stderr are terminals)?"""
    out, inp = out or sys.stderr, inp or sys.stdin
    return bool(getattr(inp, "isatty", None) and inp.isatty() and out.isatty())


def show(plan: dict[str, Any], out: Any = None) -> None:
    out = out or sys.stderr
    print(f"\nThe plan for: {plan.get('query', '')}", file=out)
    print(f"goal: {plan.get('goal', '')}", file=out)
    deps = plan.get("depends_on") or []
    for i, task in enumerate(plan.get("tasks") or []):
        after = deps[i] if i < len(deps) else []
        note = f"  (uses {', '.join(str(d + 1) for d in after)})" if after else ""
        print(f"  {i + 1}. {task}{note}", file=out)
    if plan.get("error"):
        print(f"(the last answer was not used: {plan['error']})", file=out)


def ask(plan: dict[str, Any], out: Any = None, inp: Any = None) -> dict[str, Any]:
    """Show the plan and ask until the person accepts, edits or cancels it."""
    out, inp = out or sys.stderr, inp or sys.stdin
    show(plan, out)
    while True:
        print("accept [a], edit in $EDITOR [e] or cancel [c]? ", end="", file=out, flush=True)
        choice = (inp.readline() or "c").strip().lower()[:1]
        if choice == "a":
            return {"tasks": list(plan.get("tasks") or [])}
        if choice == "c":
            return {"cancel": True}
        if choice == "e":
            tasks = edit(plan.get("tasks") or [])
            if tasks:
                return {"tasks": tasks}
            print("the edited plan has no task; asking again", file=out)


def edit(tasks: list[str]) -> list[str]:
    """The tasks after the person edited them in $VISUAL or $EDITOR (vi when neither is set)."""
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    with tempfile.NamedTemporaryFile("w+", suffix=".txt", delete=False, encoding="utf-8") as f:
        f.write(EDIT_HEADER + "\n".join(tasks) + "\n")
        path = Path(f.name)
    try:
        done = subprocess.run([*shlex.split(editor), str(path)], check=False)
        if done.returncode != 0:
            raise UsageError(f"the editor {editor!r} exited with {done.returncode}")
        return tasks_in(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise UsageError(f"cannot start the editor {editor!r} (set $EDITOR): {exc}") from exc
    finally:
        path.unlink(missing_ok=True)
