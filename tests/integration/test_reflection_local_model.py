"""Importance rating and consolidation with the real embedded model (the fast test model,
SmolLM2-135M: the subject is the grammar-bounded pipeline, not its judgement) and real MiniLM
embeddings."""

from __future__ import annotations

import pytest

from core.model_catalogue import TEST_MODEL
from core.models import Models
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
    # the real model produced well-formed insights, within the limits: the threshold (1.5) is
    # passed twice in this sequence, so up to two consolidations ran, each within its limits
    # of 3 groups and 5 insights per group
    assert 1 <= len({i.task for i in insights}) <= 6 and len(insights) <= 30
    assert all(i.reflection.strip() and i.sources for i in insights)
    found = m.get_relevant_reflections("how should I search for travel tickets?", k=10)
    assert any(r.kind == "insight" for r in found), "insights are retrievable memories"
