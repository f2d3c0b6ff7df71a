"""`main.py` on cli_scripted_agent's scripted model, writing every prompt it is given to
LOG_DIR/prompts.log: for tests that look for text that must never reach a model.

    python cli_prompt_log_agent.py LOG_DIR MAIN_ARGS...
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import main  # noqa: E402
from cli.shutdown import exit_promptly  # noqa: E402
from core.models import Models  # noqa: E402
from tests.integration.cli_scripted_agent import responder, with_tool_steps  # noqa: E402
from tests.unit.fakes import ScriptedChatModel  # noqa: E402


def logged(log_dir: Path):
    respond = responder(log_dir)

    def respond_and_log(prompt: str, title: str | None, tools: list[str], messages: list):
        with (log_dir / "prompts.log").open("a", encoding="utf-8") as f:
            f.write(prompt + "\n")
        return respond(prompt, title, tools, messages)

    return respond_and_log


if __name__ == "__main__":
    log = Path(sys.argv[1])
    model = ScriptedChatModel(responder=logged(log), calls=[])
    exit_promptly(main.main(with_tool_steps(sys.argv[2:]), models=Models.fixed(model)))
