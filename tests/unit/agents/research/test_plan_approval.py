"""Plan approval: the research graph pauses after planning (an interrupt holding the plan) and
runs the plan a person sends back, or ends with no answer when they cancel; the CLI asks in a
terminal, else prints the pause and exits 7, and `--resume ID --plan FILE` answers it."""

from __future__ import annotations

import io
import json
import os

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

import main
from agents.research.approve_plan import decide_plan, plan_request
from cli import approval
from cli.errors import EXIT_AWAITING_APPROVAL, UsageError
from core.state import STATE_KEYS
from graphs import build_reflective_graph
from graphs.research import route_plan
from tests.unit.research_script import STEPS, TASKS, Script, wire  # noqa: F401  (fixture)

EDITED = ["Find the year Ada Lovelace died", "Find where Ada Lovelace was buried"]


def _graph(wire):  # noqa: F811
    graph = build_reflective_graph().compile(checkpointer=InMemorySaver(), store=wire.store)
    return graph, {"configurable": {"thread_id": "plan"}}


def test_the_run_pauses_with_the_plan_and_runs_the_edited_one(wire):  # noqa: F811
    script = Script()
    wire(script)
    graph, config = _graph(wire)
    ctx = wire.context(approve_plan=True, max_retries=0)
    graph.invoke({"query": "Who was Ada Lovelace?"}, config, context=ctx, output_keys=STATE_KEYS)
    snapshot = graph.get_state(config)
    assert snapshot.next == ("approve_plan",)
    (pause,) = snapshot.interrupts
    assert pause.value["tasks"] == TASKS and pause.value["goal"].startswith("Explain")
    assert not script.attempts  # nothing ran before the person answered

    out = graph.invoke(
        Command(resume={"tasks": EDITED}), config, context=ctx, output_keys=STATE_KEYS
    )
    assert out["tasks"] == EDITED and out["depends_on"] == [[], []]
    assert sorted(script.attempts) == sorted(EDITED)  # the edited plan ran, and only it
    assert out["final_output"].startswith("FINAL") and out.get("stopped") is None


def test_a_resume_without_the_setting_still_runs_the_persons_plan(wire):  # noqa: F811
    """Studio or langgraph_sdk may send the resume with another context: the pause holds."""
    script = Script()
    wire(script)
    graph, config = _graph(wire)
    graph.invoke(
        {"query": "Who was Ada Lovelace?"},
        config,
        context=wire.context(approve_plan=True),
        output_keys=STATE_KEYS,
    )
    out = graph.invoke(
        Command(resume={"tasks": EDITED}), config, context=wire.context(), output_keys=STATE_KEYS
    )
    assert out["tasks"] == EDITED and sorted(script.attempts) == sorted(EDITED)


def test_a_cancelled_plan_ends_the_run_without_an_answer(wire):  # noqa: F811
    script = Script()
    wire(script)
    graph, config = _graph(wire)
    ctx = wire.context(approve_plan=True)
    graph.invoke({"query": "Who was Ada Lovelace?"}, config, context=ctx, output_keys=STATE_KEYS)
    out = graph.invoke(
        Command(resume={"cancel": True}), config, context=ctx, output_keys=STATE_KEYS
    )
    assert out["stopped"] == "cancelled" and out["final_output"] == "" and not script.attempts
    assert graph.get_state(config).next == ()


def test_a_bad_answer_is_asked_again_with_the_reason(wire):  # noqa: F811
    wire(Script())
    graph, config = _graph(wire)
    ctx = wire.context(approve_plan=True)
    graph.invoke({"query": "Who was Ada Lovelace?"}, config, context=ctx, output_keys=STATE_KEYS)
    graph.invoke(Command(resume={"tasks": []}), config, context=ctx, output_keys=STATE_KEYS)
    (pause,) = graph.get_state(config).interrupts
    assert "1 to 5 tasks" in pause.value["error"] and pause.value["tasks"] == TASKS
    out = graph.invoke(
        Command(resume={"tasks": EDITED[:1]}), config, context=ctx, output_keys=STATE_KEYS
    )
    assert out["tasks"] == EDITED[:1] and out["final_output"]


def test_without_approval_the_plan_passes_unchanged(wire):  # noqa: F811
    wire(Script())
    graph, config = _graph(wire)
    out = graph.invoke(
        {"query": "Who was Ada Lovelace?"}, config, context=wire.context(), output_keys=STATE_KEYS
    )
    assert out["tasks"] == TASKS and not graph.get_state(config).interrupts


@pytest.mark.parametrize(
    ("answer", "error"),
    [
        ("yes", "expected an object"),
        ({"tasks": "one task"}, "list of non-empty strings"),
        ({"tasks": ["a", " "]}, "list of non-empty strings"),
        ({"tasks": ["t"] * 6}, "1 to 5 tasks"),
        ({"tasks": ["a", "b"], "depends_on": [[], [1]]}, "earlier tasks"),
        ({"tasks": ["a", "b"], "depends_on": [[]]}, "one list per task"),
    ],
)
def test_bad_answers_say_what_is_wrong(answer, error):
    with pytest.raises(ValueError, match=error):
        decide_plan(answer, {"query": "q", "tasks": ["x"], "depends_on": [[]]})


def test_dependencies_follow_the_plan():
    state = {"query": "q", "tasks": ["a b c", "d e f"], "depends_on": [[], [0]]}
    assert decide_plan({"tasks": ["x", "y"]}, state)["depends_on"] == [[], [0]]  # same length
    assert decide_plan({"tasks": ["x", "y", "z"]}, state)["depends_on"] == [[], [], []]
    given = {"tasks": ["x", "y", "z"], "depends_on": [[], [0], [1, 0, 1]]}
    assert decide_plan(given, state)["depends_on"] == [[], [0], [0, 1]]
    assert plan_request(state, "bad")["error"] == "bad"


def test_route_after_the_plan():
    assert route_plan({"query": "q", "stopped": "cancelled"}) == "__end__"
    assert route_plan({"query": "q", "stopped": None}) == "schedule_tasks"


def test_the_cli_prints_the_pause_and_resumes_with_a_plan_file(wire, capsys, tmp_path):  # noqa: F811
    script = Script()
    wire(script)
    home = ["--home", str(tmp_path / "home")]
    run = ["run", "Who was Ada Lovelace?", "--no-browser", "--approve-plan", "--json", *STEPS]
    code = main.main([*home, *run], models=wire.models, tools=wire.tools)
    out = json.loads(capsys.readouterr().out)
    assert code == EXIT_AWAITING_APPROVAL == 7
    assert out["status"] == "awaiting_plan_approval" and out["interrupt"]["tasks"] == TASKS
    assert not script.attempts

    plan = tmp_path / "plan.txt"
    plan.write_text("# my plan\n" + "\n".join(EDITED) + "\n")
    resume = ["run", "--resume", out["thread_id"], "--plan", str(plan), "--json"]
    code = main.main([*home, *resume], models=wire.models, tools=wire.tools)
    done = json.loads(capsys.readouterr().out)
    assert code == 0 and done["tasks"] == EDITED and done["final_output"].startswith("FINAL")
    assert sorted(script.attempts) == sorted(EDITED)


def test_the_cli_says_a_cancelled_run_has_no_answer(wire, capsys, tmp_path):  # noqa: F811
    wire(Script())
    home = ["--home", str(tmp_path)]
    run = ["run", "Who was Ada Lovelace?", "--no-browser", "--approve-plan", "--json"]
    main.main([*home, *run], models=wire.models, tools=wire.tools)
    thread = json.loads(capsys.readouterr().out)["thread_id"]
    (tmp_path / "cancel.json").write_text('{"cancel": true}')
    resume = ["run", "--resume", thread, "--plan", str(tmp_path / "cancel.json")]
    code = main.main([*home, *resume], models=wire.models, tools=wire.tools)
    captured = capsys.readouterr()
    assert code == 1 and "cancelled: the run ended without an answer" in captured.err


def test_a_plan_file_needs_a_paused_run(wire, capsys, tmp_path):  # noqa: F811
    wire(Script())
    home = ["--home", str(tmp_path)]
    main.main([*home, "run", "Who?", "--no-browser", "--json"], models=wire.models)
    thread = json.loads(capsys.readouterr().out)["thread_id"]
    (tmp_path / "p.json").write_text('{"tasks": ["Find a thing here"]}')
    resume = ["run", "--resume", thread, "--plan", str(tmp_path / "p.json")]
    assert main.main([*home, *resume], models=wire.models) == 2
    assert "is not waiting for its plan" in capsys.readouterr().err


def test_plan_files(tmp_path):
    f = tmp_path / "plan"
    f.write_text('{"tasks": ["a"], "depends_on": [[]], "goal": "ignored"}')
    assert approval.read_plan(str(f)) == {"tasks": ["a"], "depends_on": [[]]}
    f.write_text('{"cancel": true, "tasks": ["a"]}')
    assert approval.read_plan(str(f)) == {"cancel": True}
    f.write_text("[1, 2]")
    with pytest.raises(UsageError, match="expected"):
        approval.read_plan(str(f))


def test_the_terminal_question(monkeypatch, tmp_path):
    plan = {"query": "q", "goal": "g", "tasks": ["one two three"], "depends_on": [[]]}
    err = io.StringIO()
    assert approval.ask(plan, err, io.StringIO("x\na\n")) == {"tasks": ["one two three"]}
    assert "1. one two three" in err.getvalue()
    assert approval.ask(plan, err, io.StringIO("c\n")) == {"cancel": True}
    # the editor: a script that rewrites the file it is given
    editor = tmp_path / "editor.sh"
    editor.write_text('#!/bin/sh\nprintf "# c\\nFirst new task here\\nSecond one\\n" > "$1"\n')
    os.chmod(editor, 0o755)
    monkeypatch.setenv("VISUAL", str(editor))
    answer = approval.ask(plan, err, io.StringIO("e\n"))
    assert answer == {"tasks": ["First new task here", "Second one"]}
