"""How many tool calls the executor makes: the default, none for SmolLM2-135M (its own search
queries are noise: its attempt is one call over the search for the task), or what is asked."""

from __future__ import annotations

from contextlib import contextmanager

import pytest
from langchain_core.messages import SystemMessage

from agents.tools.search_tool import make_search_tool
from core.context import Context
from core.model_defaults import DEFAULT_TOOL_STEPS
from graphs import build_reflective_graph
from tests.unit.research_script import Script, run, wire

__all__ = ["wire"]


@pytest.mark.parametrize(
    ("spec", "steps", "expected"),
    [
        ("local:smollm2-135m", None, 0),  # the tiny test model: its queries are noise
        ("local", None, 0),  # the default embedded model, on a CPU: the task's search only
        ("local:/models/qwen.gguf", None, DEFAULT_TOOL_STEPS),  # a GGUF the user chose
        ("openai:gpt-4o-mini", None, DEFAULT_TOOL_STEPS),
        ("local:smollm2", 2, 2),  # asked for: the tiny model searches on its own too
        ("openai:gpt-4o-mini", 0, 0),
    ],
)
def test_the_embedded_model_gets_no_tool_steps_unless_asked(spec, steps, expected):
    assert Context(executor_model=spec, max_tool_steps=steps).tool_steps == expected


class Recording(Script):
    """The research script that also keeps the messages of every call made without tools."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.plain: list[list] = []

    def __call__(self, prompt, title, tools, messages):
        if not title and not tools:
            self.plain.append(list(messages))
        return super().__call__(prompt, title, tools, messages)


def test_no_tool_steps_answer_from_the_search_for_the_task_in_one_call(wire):
    script = Recording()
    model = wire(script)
    ctx = wire.context(max_tool_steps=0, max_retries=0)
    _, _, state = run(build_reflective_graph(), ctx, store=wire.store)

    assert not [c for c in model.calls if c["tools"]], "the agent was offered tools"
    grounded = [m for m in script.plain if "Answer the task using only" in m[-1].text]
    assert len(grounded) == 3  # one call per task
    for messages in grounded:  # the preamble, then the run, memory, the task and evidence
        assert isinstance(messages[0], SystemMessage) and "1815" in messages[-1].text
    assert all(r.startswith("from evidence:") and "1815" in r for r in state["results"])
    runs = wire.store.search(("trajectories", "research"), limit=10)
    steps = sorted((r.value["judged_by"], len(r.value["steps"])) for r in runs)
    # each task's attempt is the search for the task; the run's, the three searches in order
    assert steps == [("reflection", 1)] * 3 + [("unjudged", 3)]


def test_no_tool_steps_and_no_search_tool_answer_on_their_own(wire, monkeypatch):
    @contextmanager
    def no_tools(ctx):
        yield []

    script = Recording(use_tools=False)
    model = wire(script)
    ctx = wire.context(max_tool_steps=0, max_retries=0, tools=no_tools)
    _, _, state = run(build_reflective_graph(), ctx)

    assert not [c for c in model.calls if c["tools"]]
    assert state["results"] == ["A direct answer, then facts with sources."] * 3
    # one call per task, the executor's own prompt (nothing was found to answer from)
    executor = [m for m in script.plain if "Complete the task." in m[-1].text]
    assert len(executor) == 3 and all("<search_results" not in m[-1].text for m in executor)


def test_the_tiny_models_default_reaches_the_executor(wire):
    """`local:smollm2-135m` runs no tool steps of its own by default."""
    script = Recording()
    model = wire(script)
    ctx = wire.context(max_retries=0, executor_model="local:smollm2-135m", max_tool_steps=None)
    run(build_reflective_graph(), ctx, store=wire.store)
    assert not [c for c in model.calls if c["tools"]]


class CallsAnyway(Recording):
    """Proposes a search even when no tool is offered (as a server may)."""

    def __call__(self, prompt, title, tools, messages):
        if "Complete the task." in prompt:
            self.plain.append(list(messages))
            return {"tool": "corpus_search", "args": {"query": "Ada Lovelace born"}}
        return super().__call__(prompt, title, tools, messages)


def test_a_search_that_only_failed_is_no_evidence_and_no_tool_runs_unoffered(wire, monkeypatch):
    searched: list[str] = []

    def broken(query: str, k: int) -> str:
        searched.append(query)
        raise OSError("index unreadable")

    tool = make_search_tool(broken, name="corpus_search", description="Search.", k=3)

    @contextmanager
    def failing_tools(ctx):
        yield [tool]

    script = CallsAnyway()
    wire(script)
    ctx = wire.context(max_tool_steps=0, max_retries=0, tools=failing_tools)
    _, _, state = run(build_reflective_graph(), ctx)

    # the executor's own prompt, not "answer from the search results" over an error
    assert len([m for m in script.plain if "Complete the task." in m[-1].text]) == 3
    # the search for the request, then for each task; the unoffered calls never ran
    assert searched[0] == "Who was Ada Lovelace?" and len(searched) == 4
    # no answer of its own: the answer from what the search returned (here its error)
    assert all(r.startswith("from evidence:") and "unreadable" in r for r in state["results"])
