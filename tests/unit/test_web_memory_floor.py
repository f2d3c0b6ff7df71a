"""The web agent's relevance floor: workflows and past runs about another task stay out of
its prompt (`gather_memory` passes `WebAgentContext.min_relevance` to both lookups)."""

from __future__ import annotations

import pytest

from agents import resources
from agents.web.memory import record_episode, similar_trajectories
from agents.web.observe import gather_memory
from browser.trajectory import TrajectoryStep
from core.web_context import WebAgentContext
from memory.reflections.manager import ReflectionManager
from memory.workflows.types import Provenance, Workflow
from memory.workflows.files import WorkflowFiles
from tests.unit.fakes import HashEmbeddings

FLOOR = 0.3  # for the model-free hashing embeddings (bag of words), as in test_workflow_retrieval
STEPS = ["click('a')", "click('b')"]


def _fill(home) -> None:
    WorkflowFiles(home).save(
        "shop", [Workflow("checkout_cart", "pay for the items in the cart", STEPS, Provenance())]
    )
    step = TrajectoryStep(1, "obs", "http://shop/", "click [1]", "click [1]", True)
    record_episode(
        home,
        "pay for the items in the cart",
        [step],
        website="shop",
        success=True,
        judged_by="evaluator",
    )


@pytest.fixture
def home(tmp_path, monkeypatch):
    manager = ReflectionManager(HashEmbeddings())
    monkeypatch.setattr(resources, "reflection_manager", lambda ctx: manager)
    _fill(tmp_path)
    return tmp_path


def _memory(home, task: str, floor: float) -> dict[str, str]:
    ctx = WebAgentContext(home=str(home), embedding_model="hashing", min_relevance=floor)
    return gather_memory(ctx, task, "shop", None)


def test_an_unrelated_task_gets_no_workflow_and_no_past_run(home):
    memory = _memory(home, "search a product by its name", FLOOR)
    assert memory["workflows"] == "" and memory["trajectories"] == ""


def test_a_related_task_still_gets_them(home):
    memory = _memory(home, "pay for the cart items", FLOOR)
    assert "checkout_cart" in memory["workflows"]
    assert "pay for the items in the cart" in memory["trajectories"]


def test_the_floor_is_the_contexts_setting(home):
    memory = _memory(home, "search a product by its name", -1.0)  # no floor
    assert "checkout_cart" in memory["workflows"] and memory["trajectories"]


def test_similar_trajectories_floor_applies_to_embedding_similarity(home):
    from core.embeddings import HashingEmbeddings

    emb = HashingEmbeddings(256)
    kw = {"home": home, "k": 2, "website": "shop"}
    assert similar_trajectories("search a product", embeddings=emb, **kw)  # no floor given
    assert similar_trajectories("search a product", embeddings=emb, min_relevance=FLOOR, **kw) == []
