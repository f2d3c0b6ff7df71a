"""Plan approval from Agent Chat UI: the pause carries the Agent Inbox fields that page reads
(the action, its arguments, the buttons, the plan as Markdown), and the answers it sends (a list
of one `{"type", "args"}`) accept, edit or cancel the plan; a reply in words is asked again."""

from __future__ import annotations

import json

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from agents.research.approve_plan import CANCELLED, decide_plan
from core.state import STATE_KEYS
from graphs import build_reflective_graph
from tests.unit.research_script import TASKS, Script, wire

__all__ = ["wire"]
EDITED = ["Find the year Ada Lovelace died", "Find where Ada Lovelace was buried"]
STATE = {"query": "q", "tasks": TASKS, "depends_on": [[] for _ in TASKS]}


def _paused(wire):
    script = Script()
    wire(script)
    graph = build_reflective_graph().compile(checkpointer=InMemorySaver(), store=wire.store)
    config, ctx = {"configurable": {"thread_id": "inbox"}}, wire.context(approve_plan=True)
    graph.invoke({"query": "Who was Ada Lovelace?"}, config, context=ctx, output_keys=STATE_KEYS)
    return graph, config, ctx, script


def test_the_pause_carries_what_the_inbox_view_reads(wire):
    graph, config, _, _ = _paused(wire)
    (pause,) = graph.get_state(config).interrupts
    value = pause.value
    assert value["action_request"] == {"action": "approve_plan", "args": {"tasks": TASKS}}
    assert set(value["config"]) == {"allow_accept", "allow_edit", "allow_respond", "allow_ignore"}
    assert value["config"]["allow_edit"] and not value["config"]["allow_respond"]
    assert value["description"].startswith("**Plan for:** Who was Ada Lovelace?")
    assert f"1. {TASKS[0]}" in value["description"]
    assert value["tasks"] == TASKS  # what the CLI and Studio read is still there


def test_accept_from_the_page_runs_the_plan_as_made(wire):
    graph, config, ctx, script = _paused(wire)
    shown = {"action": "approve_plan", "args": {"tasks": TASKS}}
    accepted = [{"type": "accept", "args": shown}]
    out = graph.invoke(Command(resume=accepted), config, context=ctx, output_keys=STATE_KEYS)
    assert out["tasks"] == TASKS and sorted(script.attempts) == sorted(TASKS)
    assert out["final_output"] and out.get("stopped") is None


def test_an_edit_from_the_page_runs_the_edited_tasks(wire):
    graph, config, ctx, script = _paused(wire)
    edited = {"action": "approve_plan", "args": {"tasks": json.dumps(EDITED)}}  # as text
    resume = [{"type": "edit", "args": edited}]
    out = graph.invoke(Command(resume=resume), config, context=ctx, output_keys=STATE_KEYS)
    assert out["tasks"] == EDITED and sorted(script.attempts) == sorted(EDITED)


def test_ignore_from_the_page_cancels_the_run(wire):
    graph, config, ctx, script = _paused(wire)
    resume = [{"type": "ignore", "args": None}]
    out = graph.invoke(Command(resume=resume), config, context=ctx, output_keys=STATE_KEYS)
    assert out["stopped"] == "cancelled" and not script.attempts
    assert out["messages"][-1].content == CANCELLED  # the chat says so


def test_a_reply_in_words_is_asked_again_with_the_reason(wire):
    graph, config, ctx, _ = _paused(wire)
    resume = [{"type": "response", "args": "looks fine"}]
    graph.invoke(Command(resume=resume), config, context=ctx, output_keys=STATE_KEYS)
    (pause,) = graph.get_state(config).interrupts
    assert "not a plan" in pause.value["error"] and "**Not taken:**" in pause.value["description"]


@pytest.mark.parametrize(
    ("tasks", "expected"),
    [
        ('["a", "b"]', ["a", "b"]),
        ("1. first task\n2) second task\n\n- third", ["first task", "second task", "third"]),
        (["x"], ["x"]),
    ],
)
def test_edited_tasks_as_the_page_sends_them(tasks, expected):
    edit = {"type": "edit", "args": {"action": "approve_plan", "args": {"tasks": tasks}}}
    assert decide_plan(edit, STATE)["tasks"] == expected
    assert decide_plan({"type": "accept", "args": None}, STATE)["tasks"] == TASKS
    bare = {"type": "accept", "args": {"action": "approve_plan", "args": None}}
    assert decide_plan(bare, STATE)["tasks"] == TASKS  # the action without its arguments
