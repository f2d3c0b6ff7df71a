"""Memory records and a scripted insight writer shared by the memory tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memory.agent_memory import AgentMemory
from memory.reflections.schema import Reflection, ReflectionJudgment
from memory.stores.project_store import open_project_store
from memory.trajectories import Trajectory
from memory.workflows.types import Provenance, Workflow
from tests.unit.fakes import ScriptedChatModel


def stored_runs(
    home: str | Path, website: str | None = None, *, spec: str = "local", models: Any = None
) -> list[Trajectory]:
    """Every run recorded in `home`'s store (opened with the embeddings it was built with)."""
    with open_project_store(home, spec, models=models) as store:
        return AgentMemory(store).trajectories(website, successful_only=False)


def reflection(task: str, lesson: str, rid: str | None = None) -> Reflection:
    """A lesson whose attempt needed no retry (`rid`: its id)."""
    extra = {"id": rid} if rid else {}
    return Reflection(
        task=task,
        reflection=lesson,
        judgment=ReflectionJudgment(needs_retry=False, confidence=0.9),
        **extra,
    )


def workflow(name: str, description: str) -> Workflow:
    """A research workflow of two steps."""
    steps = ["corpus_search('{topic}')", "browser_open('{url}')"]
    return Workflow(name, description, steps, Provenance(website="research"))


def refl(task: str, importance: float) -> Reflection:
    """A lesson about travel dates from a retried attempt, of the given importance."""
    judgment = ReflectionJudgment(needs_retry=True, confidence=0.7, reasons=["missed dates"])
    return Reflection(
        task=task,
        reflection="Set the travel dates before searching flights.",
        judgment=judgment,
        importance=importance,
    )


def scripted() -> ScriptedChatModel:
    """A consolidation model: seven insights about flight dates for any group."""

    def respond(prompt, title, tools, messages):
        if title == "Insights":
            return {
                "task_kind": "search flights",
                "insights": [f"insight {i} about flight dates" for i in range(7)],
            }
        raise AssertionError(f"unexpected schema {title}")

    return ScriptedChatModel(responder=respond, calls=[])
