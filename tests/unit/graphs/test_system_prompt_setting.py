"""The research graphs' system prompt is a user setting (Context.system_prompt, shown in Studio):
every model call of a run gets it, followed by the data rule no setting removes."""

from __future__ import annotations

import re

import main
from graphs import build_reflective_graph
from prompts.research import ROLE, SHORT_FORM
from prompts.untrusted import DATA_RULE
from tests.unit.research_script import QUESTION, STEPS, Script, run

MINE = "You research for a law firm: cite every fact."
DIRECT = "Reply with the answer only"  # a direct reading's prompt
HOP = "Continue the reasoning as the examples do"  # a hop's prompt


class Disagreeing(Script):
    """A short answer the direct readings never confirm: followed along its chain (a hop, then
    a last reading), or researched (plan, tools, verdicts, final answer, its check, a choice,
    the lesson on the choice), every kind of call a run makes."""

    def __call__(self, prompt, title, tools, messages):
        if title == "GoalSetting":
            return {"goal": "Name her birth year", "answer_form": SHORT_FORM}
        if HOP in prompt:
            return "So the answer is: 1816."
        if title == "AnswerChoice":  # the first answer shown, in either order: order-bound
            return {"answer": re.search(r"<answers>\n<answer>(.*?)</answer>", prompt).group(1)}
        if title == "FinalAnswer":
            return {"answer": "1815", "explanation": "Born then.", "sources": ["ada.md"]}
        if title == "FailureLesson":
            return {"reflection": "Quote the sentence that gives the year.", "strategy": ""}
        if DIRECT in prompt:
            return "1816"
        return super().__call__(prompt, title, tools, messages)


def test_every_call_of_a_run_gets_the_users_system_prompt(wire):
    model = wire(Disagreeing())
    for chain in (True, False):  # a short answer's chain, and research
        ctx = wire.context(system_prompt=MINE, answer_first=chain, max_retries=0)
        run(build_reflective_graph(), ctx, store=wire.store, thread=str(chain))
    kinds = {c["title"] or _kind(c["prompt"]) for c in model.calls}
    assert kinds >= {"GoalSetting", "hop", "reading", "DecomposedTasks", "executor"}
    assert "ReflectionOutput" in kinds
    assert kinds >= {"FinalAnswer", "AnswerChoice", "FailureLesson"}, kinds
    for call in model.calls:
        assert call["prompt"].startswith(f"{MINE}\n{DATA_RULE}\n"), call["title"]
        assert ROLE not in call["prompt"]


def _kind(prompt: str) -> str:
    return "hop" if HOP in prompt else "reading" if DIRECT in prompt else "executor"


def test_studio_shows_the_setting_with_its_default():
    schema = build_reflective_graph().compile().get_context_jsonschema()
    field = schema["properties"]["system_prompt"]
    assert field["default"] == ROLE and "never instructions" in field["description"]


def test_the_command_line_sets_it_from_a_flag_or_the_config_file(wire, tmp_path, capsys):
    model = wire(Disagreeing())
    argv = ["run", "--home", str(tmp_path), "--max-retries", "0", *STEPS, QUESTION]
    assert main.main([*argv[:-1], "--system-prompt", MINE, QUESTION], **_owned(wire)) == 0
    assert model.calls and all(c["prompt"].startswith(f"{MINE}\n") for c in model.calls)
    model.calls.clear()
    (tmp_path / "config.toml").write_text('system_prompt = "You answer for a school."\n')
    assert main.main(argv, **_owned(wire)) == 0
    assert model.calls and all(
        c["prompt"].startswith("You answer for a school.\n") for c in model.calls
    )
    capsys.readouterr()


def test_a_blank_system_prompt_is_refused_in_one_line(wire, tmp_path, capsys):
    model = wire(Disagreeing())
    argv = ["run", "--home", str(tmp_path), "--system-prompt", "  ", QUESTION]
    assert main.main(argv, **_owned(wire)) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "the system prompt (--system-prompt" in err, err
    assert "is empty" in err
    assert not model.calls


def _owned(wire) -> dict:
    return {"models": wire.models, "tools": wire.tools}
