"""Answer first: a short answer goal setting reads in the request's first search is checked by one
direct reading and, confirmed, ends the run with no plan. Readings that differ (or a lone
reading, when goal setting wrote none or one naming what the evidence does not hold) take one
hop: the request searched with the answers; a reading of what it found that gives one of them
settles the run, nothing found leaves a lone reading standing, else the request is researched,
the planner shown both readings. A step whose search finds only passages the run has read is
not run."""

from __future__ import annotations

import re

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from agents.research.answer_text import SHORT_FORM
from core.state import STATE_KEYS
from graphs import build_reflective_graph
from graphs.research import route_check, route_goal, route_hop
from tests.unit.research_script import QUESTION, TASKS, Script, run, wire

__all__ = ["wire"]
DIRECT = "Reply with the answer only"  # the direct reading's prompt
FIRST = {"max_retries": 0, "answer_first": True}


class FirstScript(Script):
    """Goal setting reads `first` in the evidence; the direct reading says `direct`; asked to
    choose between two answers, it keeps `choose`, or (None) the first one shown."""

    def __init__(
        self, first: str, direct: str, choose: str | None = None, hop: str = "", **kwargs
    ) -> None:
        super().__init__(**kwargs)
        self.first, self.direct, self.choose, self.hop = first, direct, choose, hop

    def __call__(self, prompt, title, tools, messages):
        if title == "GoalSetting":
            return {"goal": "Name her birth year", "answer_form": SHORT_FORM, "answer": self.first}
        if title == "AnswerChoice":
            shown = re.search(r"<answers>\n<answer>(.*?)</answer>", prompt).group(1)
            return {"answer": self.choose or shown}
        if title == "FinalAnswer":
            return {"answer": "1815", "explanation": "Born then.", "sources": ["ada.md"]}
        if DIRECT in prompt:  # a reading of the hop's passages alone, else the first reading
            return self.direct if "(source: ada.md)" in prompt else self.hop
        return super().__call__(prompt, title, tools, messages)


def test_a_first_answer_the_direct_reading_confirms_ends_the_run_in_two_calls(wire):
    model = wire(FirstScript("1815", "1815."))
    nodes, _, state = run(build_reflective_graph(), wire.context(**FIRST), store=wire.store)
    assert nodes == ["goal_setting", "check_answer", "reflect_on_answer"]
    assert len(model.calls) == 2 and state["answer"] == "1815"
    assert state["final_output"] == "1815\n\nSources: ada.md"  # the passage that holds it
    assert state["first_check"]["how"] == "agreed" and not state["tasks"]


def test_the_shorter_wording_of_a_confirmed_answer_stands_with_its_sources(wire):
    wire(FirstScript("born in 1815", "1815"))
    _, _, state = run(build_reflective_graph(), wire.context(**FIRST), store=wire.store)
    assert state["final_output"] == "1815\n\nSources: ada.md"


def test_readings_that_differ_take_a_hop_whose_reading_settles_them(wire):
    """The hop searches the request with both answers; its reading of the passage that search
    found gives one of them, which stands, cited with both searches' passages: 3 calls."""
    model = wire(FirstScript("Ada Lovelace", "1815", hop="1815"))
    nodes, _, state = run(build_reflective_graph(), wire.context(**FIRST), store=wire.store)
    assert nodes == ["goal_setting", "check_answer", "hop", "reflect_on_answer"]
    assert [c["title"] for c in model.calls] == ["GoalSetting", None, None]
    hop_reading = model.calls[-1]["prompt"]
    assert "Notes" in hop_reading and "(source: ada.md)" not in hop_reading  # new ones alone
    assert state["answer"] == "1815" and not state["tasks"]
    assert state["first_check"]["how"] == "hop reading" and state["first_check"]["hop"] == "1815"
    assert state["final_output"] == "1815\n\nSources: ada.md, notes.md"


def test_a_hop_whose_reading_gives_neither_answer_is_researched_with_both_readings(wire):
    model = wire(FirstScript("1815", "1816", hop="1817"))
    nodes, _, state = run(build_reflective_graph(), wire.context(**FIRST), store=wire.store)
    assert nodes[:4] == ["goal_setting", "check_answer", "hop", "decompose_query"]
    assert state["first_check"] == {
        "research": "1815",
        "direct": "1816",
        "chosen": "",
        "how": "open",
        "hop": "1817",
    }
    plan = next(c["prompt"] for c in model.calls if c["title"] == "DecomposedTasks")
    assert "<readings_that_disagree>" in plan and "<answer>1816</answer>" in plan
    assert nodes.count("check_answer") == 2 and state["tasks"][-1] == QUESTION


def test_a_lone_reading_stands_when_the_hop_finds_nothing_new(wire, monkeypatch):
    """Goal setting wrote no answer; one reading answers, and searching with it finds only
    what the run read: what one call over that evidence says stands (2 calls)."""
    from tests.unit import research_script

    monkeypatch.setattr(research_script, "NOTES", "")
    model = wire(FirstScript("", "1815"))
    nodes, _, state = run(build_reflective_graph(), wire.context(**FIRST), store=wire.store)
    assert nodes == ["goal_setting", "check_answer", "hop", "reflect_on_answer"]
    assert len(model.calls) == 2 and state["answer"] == "1815" and not state["tasks"]
    assert state["first_check"]["how"] == "one reading"


def test_a_lone_reading_the_hop_does_not_confirm_is_researched(wire):
    wire(FirstScript("", "1815", hop="Babbage"))
    nodes, _, state = run(build_reflective_graph(), wire.context(**FIRST), store=wire.store)
    assert nodes[:4] == ["goal_setting", "check_answer", "hop", "decompose_query"]
    assert state["tasks"] and state["first_check"]["how"] == "open"


def test_a_first_answer_naming_what_no_passage_holds_is_not_checked(wire):
    """Made up ("Lord Byron" is in no passage): dropped, and the readings that say it too
    cannot make it stand."""
    model = wire(FirstScript("Lord Byron", "Lord Byron", hop="Lord Byron"))
    nodes, _, state = run(build_reflective_graph(), wire.context(**FIRST), store=wire.store)
    assert nodes[:4] == ["goal_setting", "check_answer", "hop", "decompose_query"]
    assert state["first_check"]["research"] == "" and state["tasks"]
    assert state["first_check"]["hop"] == "Lord Byron"  # agreeing, and still not standing
    assert len([c for c in model.calls if c["title"] == "DecomposedTasks"]) == 1


def test_answer_first_off_plans_every_request(wire):
    wire(FirstScript("1815", "1815"))
    ctx = wire.context(max_retries=0)
    nodes, _, state = run(build_reflective_graph(), ctx, store=wire.store)
    assert nodes[:2] == ["goal_setting", "decompose_query"] and state["tasks"]


@pytest.mark.parametrize(
    ("state", "route"),
    [
        ({"first_check": {"how": "pending", "research": ""}}, "check_answer"),
        ({"first_check": {}}, "decompose_query"),  # answer first off, or not a short answer
    ],
)
def test_route_goal(state, route):
    assert route_goal(state) == route


@pytest.mark.parametrize(
    ("state", "route"),
    [
        ({"answer": "", "tasks": [], "first_check": {"how": "disagreed"}}, "hop"),
        ({"answer": "", "tasks": [], "first_check": {"how": "one reading"}}, "hop"),
        ({"answer": "", "tasks": []}, "decompose_query"),  # nothing read first
        ({"answer": "1815", "tasks": []}, "reflect_on_answer"),  # confirmed
        ({"answer": "", "tasks": ["a", "b"]}, "reflect_on_answer"),  # researched: never again
        ({"answer": "1815", "tasks": ["a"]}, "reflect_on_answer"),
    ],
)
def test_route_check(state, route):
    assert route_check(state) == route


@pytest.mark.parametrize(
    ("state", "route"), [({"answer": "1815"}, "reflect_on_answer"), ({}, "decompose_query")]
)
def test_route_hop(state, route):
    assert route_hop(state) == route


def test_a_step_whose_search_finds_only_read_passages_is_not_run(wire, monkeypatch):
    """Ada's passage is the run's evidence; a step whose search finds only it costs nothing,
    while the request's own task always runs."""
    from tests.unit import research_script

    monkeypatch.setattr(research_script, "NOTES", "")  # every search finds Ada's passage only
    wire(Script())
    nodes, _, state = run(build_reflective_graph(), wire.context(**FIRST), store=wire.store)
    assert [r["verdict"] for r in state["task_reports"]] == ["skipped", "skipped", "pass"]
    assert nodes.count("execute_task") == 3 and nodes.count("reflect_on_task") == 1
    assert state["results"][0].startswith("(not run:") and state["tasks"] == TASKS


def test_a_plan_to_approve_is_always_made(wire):
    wire(FirstScript("1815", "1815"))
    ctx = wire.context(**FIRST, approve_plan=True)
    nodes, _, state = run(build_reflective_graph(), ctx, store=wire.store)
    assert "decompose_query" in nodes and state["tasks"]


def test_a_cap_reached_before_the_check_ends_the_run_partial_with_the_first_answer(wire):
    model = wire(FirstScript("1815", "1815"))
    nodes, _, state = run(
        build_reflective_graph(), wire.context(**FIRST, max_calls=1), store=wire.store
    )
    assert nodes == ["goal_setting", "check_answer", "reflect_on_answer"]  # the check refused
    assert len(model.calls) == 1 and state["stopped"] == "max_calls"
    assert state["answer"] == "1815" and state["final_output"].startswith("1815")
    # the answer it has goes back as the chat's reply, cited with the passage that holds it
    assert state["messages"][-1].content == state["final_output"]
    assert [c["source"] for c in state["citations"]] == ["ada.md"]


def test_a_run_that_ends_on_its_last_allowed_call_is_not_partial(wire):
    model = wire(FirstScript("1815", "1815."))
    _, _, state = run(
        build_reflective_graph(), wire.context(**FIRST, max_calls=2), store=wire.store
    )
    assert len(model.calls) == 2 and state["answer"] == "1815"
    assert state.get("stopped") is None  # the nodes after it make no call: nothing was cut


def test_the_plans_last_task_always_runs(wire, monkeypatch):
    """A person's edited plan of one step: nothing new to read, but it is the task that
    answers, so it runs."""
    from tests.unit import research_script

    monkeypatch.setattr(research_script, "NOTES", "")
    wire(Script(plan=[]))
    ctx = wire.context(**FIRST, approve_plan=True)
    graph = build_reflective_graph().compile(checkpointer=InMemorySaver(), store=wire.store)
    config = {"configurable": {"thread_id": "edit"}}
    graph.invoke(
        {"query": QUESTION}, config, context=ctx, output_keys=STATE_KEYS
    )  # paused at the plan
    out = graph.invoke(
        Command(resume={"tasks": [TASKS[0]]}), config, context=ctx, output_keys=STATE_KEYS
    )
    assert out["tasks"] == [TASKS[0]] and out["task_reports"][0]["verdict"] == "pass"
