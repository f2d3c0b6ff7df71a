"""Importance rating and consolidation with the real embedded model (the fast test model,
SmolLM2-135M: the subject is the grammar-bounded pipeline, not its judgement) and real MiniLM
embeddings."""

from __future__ import annotations

import pytest

from core.model_catalogue import TEST_MODEL
from core.models import Models
from memory.reflections.distill import distil, general
from memory.reflections.manager import ReflectionManager
from memory.reflections.schema import Reflection, ReflectionJudgment

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def models() -> Models:
    # Only a missing optional part skips: a model that crashes or answers badly fails the test.
    pytest.importorskip("llama_cpp", reason="the embedded model needs llama-cpp-python")
    return Models()


def test_local_model_rates_and_consolidates(tmp_path, models):
    m = ReflectionManager.open(
        tmp_path,
        models.embeddings("local"),
        chat_model=models.chat(f"local:{TEST_MODEL}"),
        consolidation_threshold=1.5,
    )
    j = ReflectionJudgment(needs_retry=True, confidence=0.7, reasons=["wrong dates"])
    lessons = [
        ("Book a flight to Paris", "The search failed because the dates were never set."),
        ("Book a flight to Rome", "Set departure and return dates before pressing search."),
        ("Book a train to Lyon", "Choose the date first; results without a date are useless."),
        ("Find a hotel in Nice", "Filter by check-in date before comparing prices."),
    ]
    for task, text in lessons[:3]:  # explicit importance: 2 of them already pass 1.5
        m.save_reflection(Reflection(task=task, reflection=text, judgment=j, importance=0.9))
    rated = m.save_reflection(Reflection(task=lessons[3][0], reflection=lessons[3][1], judgment=j))
    assert 0.0 <= m.get_reflection(rated).importance <= 1.0
    insights = m.list_reflections(kind="insight")
    # whatever consolidation kept is a general strategy drawn from saved lessons, within the
    # limits (3 groups, 5 insights each); the tiny model's strategies may all be dropped
    assert len(insights) <= 15
    assert all(i.reflection.strip() and i.sources and general(i.reflection) for i in insights)
    saved = {r.id for r in m.list_reflections(kind="reflection")}
    assert all(set(i.sources) <= saved for i in insights)
    # the real model answers a distillation in the grammar's shape (None: it did not parse)
    group = [r for r in m.list_reflections(kind="reflection") if "date" in r.reflection][:3]
    assert distil(models.chat(f"local:{TEST_MODEL}"), group) is not None
    if insights:
        found = m.get_relevant_reflections("how should I search for travel tickets?", k=10)
        assert any(r.kind == "insight" for r in found), "insights are retrievable memories"
