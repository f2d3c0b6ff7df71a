"""A verdict from outside the run (a person's, a benchmark's true answer) relabels a recorded
run: judged wrong, it takes back the workflows it taught, and the next run of its form
teaches instead; judged right, it teaches (agents.research.learning.judge_run)."""

from __future__ import annotations

import pytest
from langgraph.store.memory import InMemoryStore

from agents.research.learning import WEBSITE, judge_run, record_run
from core.context import Context
from memory.agent_memory import AgentMemory

FORM = "plan_are_and_both"


def _record(memory: AgentMemory, run_id: str, request: str, searches: list[str], *, agreed: bool):
    steps = [[{"tool": "search", "args": {"q": q}, "observation": "..."}] for q in searches]
    record_run(
        memory, Context(), request=request, task_steps=steps, agreed=agreed, trajectory_id=run_id
    )


@pytest.fixture
def memory() -> AgentMemory:
    memory = AgentMemory(InMemoryStore())
    _record(
        memory,
        "r0",
        "Are Darren Shepherd and Rémi Lange both American?",
        ["nationality of Darren Shepherd", "nationality of Rémi Lange"],
        agreed=True,
    )
    _record(
        memory,
        "r1",
        "Are Scott Derrickson and Ed Wood both American?",
        ["nationality of Scott Derrickson", "nationality of Ed Wood"],
        agreed=True,
    )
    _record(
        memory,
        "r2",
        "Who directed the film that starred Ed Wood?",
        ["films starring Ed Wood", "director of Glen or Glenda"],
        agreed=False,
    )
    return memory


def _sources(memory: AgentMemory) -> dict[str, list[str]]:
    return {w.name: w.provenance.sources for w in memory.workflows(WEBSITE)}


def test_a_run_judged_wrong_takes_back_its_workflow_and_the_next_of_its_form_teaches(memory):
    assert _sources(memory) == {FORM: ["r0"]}  # the first agreed run of the form taught
    verdict = judge_run(memory, Context(), "r0", right=False, judged_by="gold")
    assert (verdict.forgotten, verdict.learned) == ([FORM], [FORM])
    assert _sources(memory) == {FORM: ["r1"]}
    run = memory.trajectory(WEBSITE, "r0")
    assert run is not None and not run.success and run.judged_by == "gold"
    # both runs of the form wrong: nothing of that form is left to teach
    verdict = judge_run(memory, Context(), "r1", right=False, judged_by="gold")
    assert (verdict.forgotten, verdict.learned) == ([FORM], [])
    assert _sources(memory) == {}


def test_a_run_judged_right_teaches_though_its_readings_disagreed(memory):
    verdict = judge_run(memory, Context(), "r2", right=True, judged_by="person")
    assert verdict.forgotten == [] and verdict.learned == [
        "plan_who_directed_the_film_that_starred"
    ]
    assert _sources(memory)["plan_who_directed_the_film_that_starred"] == ["r2"]
    # a right verdict on a run that already taught changes nothing
    again = judge_run(memory, Context(), "r0", right=True, judged_by="person")
    assert (again.forgotten, again.learned) == ([], [])


def test_no_such_run_is_a_lookup_error_and_changes_nothing(memory):
    with pytest.raises(LookupError, match="no recorded run 'nope'"):
        judge_run(memory, Context(), "nope", right=False, judged_by="person")
    assert _sources(memory) == {FORM: ["r0"]}


def test_with_induction_off_a_verdict_relabels_and_takes_back_but_teaches_nothing(memory):
    verdict = judge_run(memory, Context(induction="off"), "r0", right=False, judged_by="gold")
    assert (verdict.forgotten, verdict.learned) == ([FORM], [])
