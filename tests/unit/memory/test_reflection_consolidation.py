"""Consolidation: past the importance threshold, groups of alike lessons → insights stored as
memories (what goes into a group, and what counts as an insight: test_lesson_quality.py)."""

from __future__ import annotations

import pytest

from core.embeddings import HashingEmbeddings
from memory.reflections.consolidation import consolidation_due
from memory.reflections.manager import ReflectionManager
from memory.reflections.schema import Reflection, ReflectionJudgment
from tests.unit.fakes import ScriptedChatModel
from tests.unit.memory.records import refl, scripted


def test_consolidates_once_the_threshold_is_passed(tmp_path):
    model = scripted()
    m = ReflectionManager.open(
        tmp_path, HashingEmbeddings(), chat_model=model, consolidation_threshold=2.0
    )
    m.save_reflection(refl("flight search one", 0.9))
    m.save_reflection(refl("flight search two", 0.9))
    assert model.calls == [], "1.8 < 2.0: not yet"
    m.save_reflection(refl("flight search three", 0.9))
    insights = m.list_reflections(kind="insight")
    assert len(insights) == 5, "one group of alike lessons, at most 5 insights"
    assert {i.task for i in insights} == {"search flights"}
    assert all(len(i.sources) == 3 for i in insights)
    titles = [c["title"] for c in model.calls]
    assert titles == ["Insights"]
    # the batch is consumed: more saves below the threshold do not consolidate again
    m.save_reflection(refl("flight search four", 0.5))
    assert len(model.calls) == 1
    assert not consolidation_due(m, 2.0)[0]
    # insights are memories that ordinary retrieval returns
    found = m.get_relevant_reflections("insight about flight dates", k=3)
    assert found and all(r.kind == "insight" for r in found)


def test_another_process_cannot_consolidate_the_same_batch(tmp_path):
    first = ReflectionManager.open(
        tmp_path, HashingEmbeddings(), chat_model=scripted(), consolidation_threshold=1.0
    )
    second = ReflectionManager.open(
        tmp_path, HashingEmbeddings(), chat_model=scripted(), consolidation_threshold=1.0
    )
    first.save_many([refl("flight a", 0.8), refl("flight b", 0.8)])
    assert len(first.maybe_consolidate()) == 5
    assert second.maybe_consolidate() == []
    assert len(second.list_reflections(kind="insight")) == 5


def test_a_model_that_names_no_insights_stores_nothing_and_the_batch_stays_pending():
    model = ScriptedChatModel(responder=lambda *a: {"task_kind": "x", "insights": []}, calls=[])
    m = ReflectionManager(chat_model=model, consolidation_threshold=0.1)
    m.save_many([refl("flight", 0.5)])
    m.save_reflection(refl("flight again", 0.5))
    assert m.list_reflections(kind="insight") == [] and model.calls  # asked (and retried)
    assert consolidation_due(m, 0.1)[0]


def test_answers_that_hold_no_strategy_consume_the_batch():
    model = ScriptedChatModel(
        responder=lambda *a: {"task_kind": "x", "insights": ["Flights to Paris cost 300."]},
        calls=[],
    )
    m = ReflectionManager(chat_model=model, consolidation_threshold=1.0)
    m.save_many([refl("flight", 0.9)])
    m.save_reflection(refl("flight again", 0.9))
    assert m.list_reflections(kind="insight") == [] and len(model.calls) == 1
    assert not consolidation_due(m, 1.0)[0], "asked once: not asked again for the same lessons"


def test_the_model_rates_importance_unless_it_was_given():
    model = ScriptedChatModel(
        responder=lambda p, title, *a: (
            {"score": 10} if title == "ImportanceRating" else {"task_kind": "x", "insights": []}
        ),
        calls=[],
    )
    m = ReflectionManager(chat_model=model, consolidation_threshold=100.0)
    judgment = ReflectionJudgment(needs_retry=True, confidence=0.7, reasons=[])
    rated = m.save_reflection(Reflection(task="t", reflection="r", judgment=judgment))
    fixed = m.save_reflection(refl("given", 0.2))
    assert m.get_reflection(rated).importance == 1.0
    assert m.get_reflection(fixed).importance == 0.2
    assert [c["title"] for c in model.calls] == ["ImportanceRating"]


def failing_once(title_to_fail: str):
    """The scripted model, except that its first `title_to_fail` call raises (a timeout)."""
    inner = scripted()
    failed: list[str] = []

    def respond(prompt, title, tools, messages):
        if title == title_to_fail and not failed:
            failed.append(title)
            raise TimeoutError("model server did not answer")
        return inner.responder(prompt, title, tools, messages)

    return ScriptedChatModel(responder=respond, calls=[])


def test_a_transient_model_error_keeps_the_batch_and_it_is_consolidated_once(tmp_path, caplog):
    model = failing_once("Insights")
    m = ReflectionManager.open(
        tmp_path, HashingEmbeddings(), chat_model=model, consolidation_threshold=1.5
    )
    m.save_reflection(refl("flight search one", 0.9))
    with caplog.at_level("WARNING"):
        m.save_reflection(refl("flight search two", 0.9))  # due: the second model call fails
    assert m.count() == 2 and m.list_reflections(kind="insight") == []
    assert "TimeoutError" in caplog.text and "stays pending" in caplog.text
    assert consolidation_due(m, 1.5)[0], "the batch was not consumed by the failed attempt"
    m.save_reflection(refl("flight search three", 0.1))  # the next save retries the batch
    assert len(m.list_reflections(kind="insight")) == 5
    m.save_reflection(refl("flight search four", 0.1))
    assert len(m.list_reflections(kind="insight")) == 5, "and never again"
    assert not consolidation_due(m, 1.5)[0]


def test_insights_are_not_stored_when_another_process_consolidated_meanwhile(tmp_path):
    m = ReflectionManager.open(tmp_path, HashingEmbeddings(), consolidation_threshold=1.0)
    other = ReflectionManager.open(tmp_path, HashingEmbeddings(), consolidation_threshold=1.0)
    m.save_many([refl("flight a", 0.8), refl("flight b", 0.8)])

    def respond(prompt, title, tools, messages):
        if title == "Insights" and other.chat_model is None:
            # we outlived our lease; meanwhile the other process consolidates the batch
            other.backend.records.set_meta("consolidating:" + m.prefix, "")
            other.chat_model = scripted()
            assert len(other.maybe_consolidate()) == 5
        return scripted().responder(prompt, title, tools, messages)

    m.chat_model = ScriptedChatModel(responder=respond, calls=[])
    assert m.maybe_consolidate() == []
    assert len(m.list_reflections(kind="insight")) == 5


def test_a_live_lease_keeps_a_second_consolidator_away(tmp_path):
    import socket
    import subprocess
    import sys
    import time

    m = ReflectionManager.open(
        tmp_path, HashingEmbeddings(), chat_model=scripted(), consolidation_threshold=1.0
    )
    m.save_many([refl("flight a", 0.8), refl("flight b", 0.8)])
    key = "consolidating:" + m.prefix
    here = socket.gethostname()
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    held = [f"{time.time() + 60} elsewhere 1", f"{time.time() + 60} {here} 1"]  # pid 1 lives
    for lease in held:  # someone is working on it, on another host or on this one
        m.backend.records.set_meta(key, lease)
        assert m.maybe_consolidate() == [] and m.chat_model.calls == []
    for lease in [f"{time.time() - 1} elsewhere 1", f"{time.time() + 60} {here} {dead}"]:
        m.backend.records.set_meta(key, lease)  # ran out, or its holder was killed
        m.save_many([refl("flight c", 1.0)])  # a new batch, due, each time
        assert len(m.maybe_consolidate()) == 5
    assert m.backend.records.meta(key) == "", "the lease is released after the work"


def test_shared_memory_gets_the_insights_or_the_local_claim_is_undone():
    from langgraph.store.memory import InMemoryStore

    from memory.stores.postgres import SharedReflectionManager

    class FlakyShared(InMemoryStore):
        fail_puts = False

        def put(self, *args, **kwargs):
            if self.fail_puts:
                raise ConnectionError("shared store went away")
            return super().put(*args, **kwargs)

    shared = FlakyShared()
    m = SharedReflectionManager(
        shared, embeddings=HashingEmbeddings(), chat_model=scripted(), consolidation_threshold=9
    )
    m.save_many([refl("flight a", 0.8), refl("flight b", 0.8)])
    shared.fail_puts = True
    with pytest.raises(ConnectionError):
        m.maybe_consolidate(force=True)
    assert m.list_reflections(kind="insight") == [] and consolidation_due(m, 1.0)[0]
    shared.fail_puts = False
    assert len(m.maybe_consolidate(force=True)) == 5
    kinds = [item.value["kind"] for item in shared.search(m.path, limit=100)]
    assert kinds.count("insight") == 5
