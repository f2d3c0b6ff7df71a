"""Reflections between attempts: the checker's verdict is kept, the model writes the lesson."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from evals.common.reflection import ReflectionFailed, reflect_on_attempt
from memory.agent_memory import AgentMemory
from memory.stores.project_store import open_project_store
from tests.unit.fakes import ScriptedChatModel


def scripted(*replies: str) -> ScriptedChatModel:
    queue = list(replies)
    return ScriptedChatModel(responder=lambda *a: queue.pop(0), calls=[])


@pytest.fixture
def manager(tmp_path: Path) -> Iterator[AgentMemory]:
    """An arm's memory: the project's store under its home, as the AWM jobs open it."""
    with open_project_store(tmp_path, "hashing") as store:
        yield AgentMemory(store, "t")


def test_lesson_saved_with_the_checkers_verdict(manager: AgentMemory) -> None:
    model = scripted('{"reflection": "Type the password into both fields."}')
    rid = reflect_on_attempt(
        model,
        manager,
        task="Enter the password x into both fields",
        attempt=["type [3] [x] [0]", "click [5]"],
        success=False,
        feedback="reward -1",
    )
    saved = manager.get_reflection(rid)
    assert saved is not None and saved.reflection == "Type the password into both fields."
    assert saved.judgment.needs_retry and saved.judgment.confidence == 1.0
    assert saved.judgment.reasons == ["failure: reward -1"] and saved.importance == 0.8
    assert (
        "type [3] [x] [0]" in model.calls[0]["prompt"]
        and "failure: reward -1" in model.calls[0]["prompt"]
    )


def test_no_usable_lesson_saves_nothing(manager: AgentMemory) -> None:
    model = scripted("not json", "{}")
    with pytest.raises(ReflectionFailed, match="no usable lesson"):
        reflect_on_attempt(model, manager, task="t", attempt="", success=True, feedback="")
    assert manager.list_reflections() == []


def test_the_reflector_reads_the_context_the_attempt_read(manager: AgentMemory) -> None:
    """Reflexion's CoT reflector sees the answerer's paragraphs; without a context (a web
    episode) the prompt has no <context> section."""
    model = scripted('{"reflection": "Read the second paragraph."}', '{"reflection": "Again."}')
    paragraphs = "Scott: Walter Scott wrote Ivanhoe.\nIvanhoe: a novel </context> of 1819."
    reflect_on_attempt(
        model,
        manager,
        task="Who wrote Ivanhoe?",
        attempt="answer: Dickens",
        success=False,
        feedback="the answer did not match",
        context=paragraphs,
    )
    reflect_on_attempt(model, manager, task="t", attempt="a", success=False, feedback="")
    with_context, without = (c["prompt"] for c in model.calls)
    assert "<context>\nScott: Walter Scott wrote Ivanhoe." in with_context
    assert with_context.count("</context>") == 1  # a paragraph cannot close the section
    assert "<context>\n" not in without


def test_earlier_lessons_are_shown_as_data_and_only_when_there_are_some(
    manager: AgentMemory,
) -> None:
    """A retry's reflector reads what it wrote after the task's earlier failures, escaped (a
    lesson cannot close its section); a first failure's prompt has no such section, and a web
    task keeps its own things in the "be concrete" clause."""
    model = scripted('{"reflection": "One."}', '{"reflection": "Two."}')
    reflect_on_attempt(model, manager, task="t", attempt="a", success=False, feedback="")
    reflect_on_attempt(
        model,
        manager,
        task="t",
        attempt="a",
        success=False,
        feedback="",
        earlier=["One.", "x </earlier_lessons> y"],
    )
    first, second = (c["prompt"] for c in model.calls)
    assert "<earlier_lessons>" not in first and "the field, the button" in first
    assert "<earlier_lessons>\n- One.\n- x " in second
    assert second.count("</earlier_lessons>") == 1


def test_a_lesson_that_says_an_earlier_one_again_is_asked_anew_then_dropped(
    manager: AgentMemory,
) -> None:
    """Shown its trial-2 lesson, the 1.5B wrote it again word for word: a repeat (nearly the
    same words) is asked for in a new sample round; a second repeat saves nothing, so the
    answerer never reads the same lesson twice."""
    earlier = "Read the second paragraph: it names the stadium of the team."
    again = "Read the second paragraph, it names the stadium of the team!"
    model = scripted(
        f'{{"reflection": "{again}"}}', '{"reflection": "Check which team he coached in 2010."}'
    )
    rid = reflect_on_attempt(
        model, manager, task="t", attempt="a", success=False, feedback="", earlier=[earlier]
    )
    saved = manager.get_reflection(rid)
    assert saved is not None and saved.reflection == "Check which team he coached in 2010."
    assert len(model.calls) == 2
    model = scripted(f'{{"reflection": "{again}"}}', f'{{"reflection": "{earlier}"}}')
    with pytest.raises(ReflectionFailed, match="earlier lesson again 2 times"):
        reflect_on_attempt(
            model, manager, task="u", attempt="a", success=False, feedback="", earlier=[earlier]
        )
    assert [r.task for r in manager.list_reflections()] == ["t"]


def test_lessons_are_the_same_when_nearly_all_their_words_are() -> None:
    from memory.reflections.lessons import same_lesson

    assert same_lesson("Read the date.", "read the DATE")
    assert not same_lesson("Read the date.", "Read the second date of birth.")
    assert not same_lesson("", "")
