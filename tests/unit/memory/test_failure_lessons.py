"""Lessons from failures too (ReasoningBank): a failed attempt's reflection is stored as what to
do differently, kept apart from the lessons of successes by its `outcome`, and both reach the
next prompts, each labelled with what it was learned from."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

from core.embeddings import HashingEmbeddings
from graphs import build_reflective_graph
from main import main
from memory.agent_memory import AgentMemory
from memory.reflections.consolidation import consolidate
from memory.reflections.manager import ReflectionManager, format_reflections
from memory.reflections.schema import Reflection, ReflectionJudgment
from tests.unit.fakes import ScriptedChatModel
from tests.unit.research_script import Script, new_store, past_reflections_seen_next, run, wire

__all__ = ["wire"]

WORKED = "worked before"
FAILED = "failed before"
PASS = ReflectionJudgment(needs_retry=False, confidence=0.9, verdict="pass")
RETRY = ReflectionJudgment(needs_retry=True, confidence=0.9, verdict="retry")


class Lessons(Script):
    """A reflector that says what to do differently after a failure and what worked after a
    success."""

    def __call__(self, prompt, title, tools, messages):
        reply = super().__call__(prompt, title, tools, messages)
        if title == "ReflectionOutput":
            reply["reflection"] = (
                "Search the biography instead of the first hit."
                if reply["needs_retry"]
                else "Quoting the birth line of the biography worked."
            )
        return reply


def lesson(task: str, text: str, judgment: ReflectionJudgment, **fields) -> Reflection:
    return Reflection(task=task, reflection=text, judgment=judgment, importance=0.9, **fields)


def test_a_failed_attempt_leaves_a_failure_lesson_and_the_retry_a_success_lesson(wire):
    model = wire(Lessons({0: [True, False]}))
    run(build_reflective_graph(), wire.context(max_retries=1), store=wire.store)
    items = wire.store.search(("reflections", "default"), limit=50)
    first_task = [i.value for i in items if i.value["task_index"] == 0]
    by_attempt = {v["attempt"]: v["outcome"] for v in first_task}
    assert by_attempt == {1: "failure", 2: "success"}

    past = past_reflections_seen_next(model, wire)
    blocks = past.split("</ref_")
    failed = next(b for b in blocks if "instead of the first hit" in b)
    worked = next(b for b in blocks if "birth line" in b)
    assert FAILED in failed and WORKED not in failed
    assert WORKED in worked and FAILED not in worked


def test_both_kinds_are_retrievable_and_can_be_asked_for_apart():
    memory = AgentMemory(new_store(), min_relevance=-1.0)
    task = "Find the birth year of Ada Lovelace"
    fail = memory.save_reflection(
        lesson(task, "Search the biography, not the first hit.", RETRY, outcome="failure")
    )
    win = memory.save_reflection(
        lesson(task, "Quote the biography's birth line.", PASS, outcome="success")
    )
    assert {r.id for r in memory.relevant_reflections(task, k=5)} == {fail, win}
    only_wins = memory.relevant_reflections(task, k=5, outcomes={"success"})
    only_fails = memory.relevant_reflections(task, k=5, outcomes={"failure"})
    assert [r.id for r in only_wins] == [win] and [r.id for r in only_fails] == [fail]


def test_a_record_from_before_the_field_loads_dumps_and_prints_as_before(tmp_path, capsys):
    old = {
        "id": "old-1",
        "task": "book a flight",
        "reflection": "Set the dates first.",
        "judgment": {"needs_retry": True, "confidence": 0.7, "reasons": ["r"]},
    }
    record = Reflection.model_validate(old)
    assert record.outcome is None and "outcome" not in record.model_dump(mode="json")
    text = format_reflections([record])
    assert text.endswith("</reflection>\n</ref_0>") and FAILED not in text
    # and the JSONL export keeps the field of a record that has one
    src = tmp_path / "in.jsonl"
    new = {**old, "id": "new-1", "outcome": "failure"}
    src.write_text(json.dumps(old) + "\n" + json.dumps(new) + "\n")
    hashing = ["--embedding-model", "hashing"]
    assert main(["--home", str(tmp_path), "memory", "import", str(src), *hashing]) == 0
    out = tmp_path / "out.jsonl"
    assert main(["--home", str(tmp_path), "memory", "export", str(out), *hashing]) == 0
    rows = {r["id"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert "outcome" not in rows["old-1"] and rows["new-1"]["outcome"] == "failure"
    capsys.readouterr()


def test_an_insight_keeps_the_outcome_its_lessons_share():
    seen: list[str] = []

    def respond(prompt, title, tools, messages):
        seen.append(prompt)
        return {"task_kind": "find a birth year", "insights": ["Search the biography first."]}

    model = ScriptedChatModel(responder=respond, calls=[])
    m = ReflectionManager(HashingEmbeddings())
    tasks = [f"Find the birth year of {n}" for n in ("Ada Lovelace", "Alan Turing")]
    text = "Search the biography instead of the first hit."
    m.save_many([lesson(t, text, RETRY, outcome="failure") for t in tasks])
    (insight,) = consolidate(m, model, threshold=0.1, force=True)
    assert insight.outcome == "failure" and FAILED in seen[0]
    m.save_many([lesson(f"{tasks[0]}?", text, PASS, outcome="success")])
    (mixed,) = consolidate(m, model, threshold=0.1, force=True)
    assert mixed.outcome is None, "learned from both: neither label"


def test_failure_lessons_can_be_kept_out_of_the_prompts(wire):
    """The lab's SuccessLessonsOnly view of the store (the stream experiment's
    `carry-successes` arm): only lessons learned from successes reach the next run's prompts;
    both stay stored."""
    from evals.common.memory_store import SuccessLessonsOnly

    model = wire(Lessons({0: [True, False]}))
    run(build_reflective_graph(), wire.context(max_retries=1), store=wire.store)
    model.calls.clear()
    ctx = wire.context(max_retries=1)
    run(build_reflective_graph(), ctx, query="Ada Lovelace?", store=SuccessLessonsOnly(wire.store))
    plan = next(c["prompt"] for c in model.calls if c["title"] == "DecomposedTasks")
    past = plan.split("<past_reflections>")[1].split("</past_reflections>")[0]
    assert "birth line" in past and "instead of the first hit" not in past
    assert FAILED not in past
    outcomes = {i.value["outcome"] for i in wire.store.search(("reflections", "default"))}
    assert outcomes >= {"failure", "success"}


def test_the_success_only_view_keeps_out_what_no_success_taught_and_passes_extras():
    """Also on a store without a vector index (AgentMemory ranks a listing itself there), and
    for a record that states no outcome (from before outcomes, or distilled from both); the
    store's own extras (consolidation's reflection manager) stay reachable through the view."""
    from langgraph.store.memory import InMemoryStore

    from evals.common.memory_store import SuccessLessonsOnly

    task = "Find the birth year of Ada Lovelace"
    store = InMemoryStore()  # no index
    memory = AgentMemory(store)
    memory.save_reflection(lesson(task, "Search the biography first.", RETRY, outcome="failure"))
    memory.save_reflection(lesson(task, "Prefer the encyclopedia's article.", PASS))  # no outcome
    memory.save_reflection(
        lesson(task, "Quote the biography's birth line.", PASS, outcome="success")
    )
    embed = HashingEmbeddings(256)
    whole = AgentMemory(store, min_relevance=-1.0, embeddings=embed)
    assert len(whole.relevant_reflections(task, 5)) == 3
    seen = AgentMemory(SuccessLessonsOnly(store), min_relevance=-1.0, embeddings=embed)
    assert [r.outcome for r in seen.relevant_reflections(task, 5)] == ["success"]

    class Consolidating(InMemoryStore):  # as the project's stores are
        def reflection_manager(self, namespace: str, chat_model: Any = None) -> Any:
            return SimpleNamespace(maybe_consolidate=lambda: ["insight"])

    assert AgentMemory(SuccessLessonsOnly(Consolidating())).consolidate(None) == 1


def test_the_carry_successes_arm_reads_its_memory_through_the_view():
    from langgraph.store.memory import InMemoryStore

    from evals.common.memory_store import SuccessLessonsOnly
    from evals.hotpotqa.agent import _as_prompts_see

    store = InMemoryStore()
    assert isinstance(_as_prompts_see(store, {"failure_lessons": False}), SuccessLessonsOnly)
    assert _as_prompts_see(store, {}) is store
