"""Where the reflector model's verdict decides nothing (the embedded CPU models pass nearly every
attempt), the evidence judges each attempt: a result naming what nothing the task read contains
fails and the model writes what to do instead; any other passes with no call; a retry that
worked leaves the lesson of what made it work."""

from __future__ import annotations

import pytest

from core.context import Context
from graphs import build_reflective_graph
from memory.reflections.lessons import NO_LESSON
from tests.unit.research_script import TASKS, Script, run, wire

__all__ = ["wire"]


class MadeUpFirst(Script):
    """Task 1's first attempt names a person nothing read holds; every later one is read."""

    def executor(self, prompt, messages):
        answer = super().executor(prompt, messages)
        first = isinstance(answer, str) and answer.startswith(f"attempt 1 for {TASKS[0]}")
        return "Lord Byron wrote it (source: ada)" if first else answer

    def __call__(self, prompt, title, tools, messages):
        if title == "FailureLesson":
            if "An earlier attempt at this task failed" in prompt:
                return {
                    "reflection": "Quoting the passage worked.",
                    "strategy": "When asked, quote.",
                }
            return {
                "reflection": "Name only what a passage says.",
                "strategy": "When unsure, cite.",
            }
        return super().__call__(prompt, title, tools, messages)


def _verdicts(state):
    return [(r["task"], r["judgment"]["verdict"], r["reflection"]) for r in state["reflections"]]


def test_the_evidence_judges_without_a_verdict_call(wire):
    model = wire(Script([True] * 10))  # a model verdict would ask for retries: never asked
    nodes, _, state = run(
        build_reflective_graph(),
        wire.context(max_retries=1, model_verdicts=False),
        store=wire.store,
    )
    assert not [c for c in model.calls if c["title"] == "ReflectionOutput"]
    reports = state["task_reports"]
    assert [r["verdict"] for r in reports] == ["pass"] * 3 and nodes.count("execute_task") == 3
    reflections = wire.store.search(("reflections", "default"), limit=10)
    assert len(reflections) == 3 and {r.value["reflection"] for r in reflections} == {NO_LESSON}


def test_a_made_up_name_fails_is_retried_and_the_retry_that_worked_teaches(wire):
    model = wire(MadeUpFirst())
    _, _, state = run(
        build_reflective_graph(),
        wire.context(max_retries=1, model_verdicts=False),
        store=wire.store,
    )
    assert (
        state["task_reports"][0]["retries"] == 1 and state["task_reports"][0]["verdict"] == "pass"
    )
    assert [r["verdict"] for r in state["task_reports"][1:]] == ["pass", "pass"]
    lessons = [c["prompt"] for c in model.calls if c["title"] == "FailureLesson"]
    assert len(lessons) == 2 and "it names Byron" in lessons[0]  # the failure, then the fix
    saved = {
        (r.value["judgment"]["verdict"], r.value["reflection"])
        for r in wire.store.search(("reflections", "default"), limit=10)
    }
    assert ("retry", "Name only what a passage says. When unsure, cite.") in saved
    assert ("pass", "Quoting the passage worked. When asked, quote.") in saved


@pytest.mark.parametrize(
    ("settings", "verdicts"),
    [
        ({}, False),  # the embedded default
        ({"reflector_model": "local:smollm2-135m"}, False),
        ({"reflector_model": "openai:gpt-4o-mini"}, True),
        ({"reflector_model": "local:/models/any.gguf"}, True),  # a model nobody measured
        ({"model_verdicts": True}, True),
        ({"reflector_model": "openai:gpt-4o-mini", "model_verdicts": False}, False),
    ],
)
def test_who_judges_by_default(settings, verdicts):
    assert Context(**settings).verdicts is verdicts
