"""Where a run goes after goal setting and after each hop: a short answer with evidence along
its chain, anything else (or with --always-plan, or a plan to approve) to a plan; the chain's
end at a cap; the plan's steps that find nothing new not run, its last task always run."""

from __future__ import annotations

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from core.state import STATE_KEYS
from graphs import build_reflective_graph
from graphs.research import route_goal, route_hop
from tests.unit.agents.research.test_hop import FIRST, ChainScript
from tests.unit.research_script import QUESTION, TASKS, Script, run, wire

__all__ = ["wire"]


def test_answer_first_off_plans_every_request(wire):
    wire(ChainScript("So the answer is: 1815."))
    nodes, _, state = run(build_reflective_graph(), wire.context(max_retries=0), store=wire.store)
    assert nodes[:2] == ["goal_setting", "decompose_query"] and state["tasks"]


def test_a_plan_to_approve_is_always_made(wire):
    wire(ChainScript("So the answer is: 1815."))
    ctx = wire.context(**FIRST, approve_plan=True)
    nodes, _, state = run(build_reflective_graph(), ctx, store=wire.store)
    assert "decompose_query" in nodes and "hop" not in nodes and state["tasks"]


@pytest.mark.parametrize(
    ("state", "route"),
    [
        ({"research": "chain"}, "hop"),
        ({"research": "plan"}, "decompose_query"),
        ({}, "decompose_query"),
    ],
)
def test_route_goal(state, route):
    assert route_goal(state) == route


def test_goal_setting_sends_a_short_answer_with_evidence_along_its_chain(wire, monkeypatch):
    from tests.unit import research_script

    wire(ChainScript("So the answer is: 1815."))
    for settings, research in [
        ({}, "chain"),
        ({"answer_first": False}, "plan"),
        ({"approve_plan": True}, "plan"),  # a person asked to see the plan
    ]:
        ctx = wire.context(**{**FIRST, **settings})
        _, updates, _ = run(build_reflective_graph(), ctx, store=wire.store, thread=research)
        assert updates[0][1]["research"] == research, settings
    monkeypatch.setattr(research_script, "DOCS", {"ada": ""})  # the first search finds nothing
    wire_ = research_script.Wiring()
    wire_(ChainScript("So the answer is: 1815."))
    _, updates, _ = run(build_reflective_graph(), wire_.context(**FIRST), store=wire_.store)
    assert updates[0][1]["research"] == "plan"


SEARCHED = {"facts": [], "guess": "x", "searched": "x"}


@pytest.mark.parametrize(
    ("state", "route"),
    [
        ({"chain": [SEARCHED]}, "hop"),
        ({"chain": [{**SEARCHED, "searched": "", "how": "answered"}]}, "reflect_on_answer"),
        ({"chain": [SEARCHED], "stopped": "max_calls"}, "reflect_on_answer"),
        ({}, "reflect_on_answer"),
    ],
)  # fmt: skip
def test_route_hop(state, route):
    assert route_hop(state) == route


def test_a_cap_reached_inside_the_chain_ends_the_run_partial(wire):
    model = wire(ChainScript("Ada Lovelace met Person1 in Town1."))
    nodes, _, state = run(
        build_reflective_graph(), wire.context(**FIRST, max_calls=2), store=wire.store
    )
    assert len(model.calls) == 2 and state["stopped"] == "max_calls"
    assert nodes[-1] == "reflect_on_answer" and not state["tasks"]
    # no answer yet: the chat's last message says why, not a blank
    assert state["messages"][-1].content == (
        "No answer: this run reached its max_calls cap before it found one."
    )
    assert state["final_output"] == ""  # the CLI still says the run has no answer


def test_a_run_that_ends_on_its_last_allowed_call_is_not_partial(wire):
    model = wire(ChainScript("So the answer is: 1815."))
    _, _, state = run(
        build_reflective_graph(), wire.context(**FIRST, max_calls=2), store=wire.store
    )
    assert len(model.calls) == 2 and state["answer"] == "1815"
    assert state.get("stopped") is None  # the nodes after it make no call: nothing was cut


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
