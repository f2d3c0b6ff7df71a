"""`main.py` in a child process with a scripted model that uses an MCP tool, for the MCP tests.

    python cli_mcp_agent.py LOG_DIR MAIN_ARGS...

The executor calls `facts_station_code` once per attempt and answers with the code it finds in
the tool's reply; the aggregator answers with the code it finds in its prompt (the tasks'
results), so the final answer holds the code only if the tool's result travelled through the
run. Each tool message the executor sees is appended to LOG_DIR/tool_messages.log as it arrived.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import main  # noqa: E402
from cli.shutdown import exit_promptly  # noqa: E402
from core.models import Models  # noqa: E402
from tests.unit.fakes import ScriptedChatModel  # noqa: E402

TOOL = "facts_station_code"
CODE = re.compile(r"\b\d{4}-[A-Z]{4,}\b")


def _code_in(text: str) -> str:
    found = CODE.search(text)
    return found.group(0) if found else "(no code)"


def responder(log_dir: Path):
    def respond(prompt: str, title: str | None, tools: list[str], messages: list) -> object:
        if title == "GoalSetting":
            return {
                "goal": "Give the vault code of Halley station",
                "answer_form": "a name, date, number, yes or no, or a short phrase",
                "criteria": ["the code"],
            }
        if title == "DecomposedTasks":
            return {"tasks": []}  # one fact: the request is the one task
        if title == "ReflectionOutput":
            verdict = {"needs_retry": False, "confidence": 0.9, "reasons": ["from the tool"]}
            return {"reflection": "The tool gave the code.", **verdict}
        if title == "FinalAnswer":
            return {"answer": f"The vault code of Halley station is {_code_in(prompt)}."}
        if TOOL in tools:
            replies = [m for m in messages if m.type == "tool" and m.name == TOOL]
            if not replies:
                return {"tool": TOOL, "args": {"station": "Halley"}}
            with (log_dir / "tool_messages.log").open("a", encoding="utf-8") as log:
                log.write(replies[-1].text + "\n")
            return f"The vault code is {_code_in(replies[-1].text)} (source: {TOOL})"
        return f"The vault code is {_code_in(prompt)}."

    return respond


if __name__ == "__main__":
    model = ScriptedChatModel(responder=responder(Path(sys.argv[1])), calls=[])
    exit_promptly(main.main(sys.argv[2:], models=Models.fixed(model)))
