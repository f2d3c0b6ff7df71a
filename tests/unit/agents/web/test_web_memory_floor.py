"""The web agent's memory through the project's store: the relevance floor keeps workflows,
past runs and lessons about another task out of its prompt (`gather_memory` applies
`WebAgentContext.min_relevance` to every lookup); a finished run is recorded and learned from."""

from __future__ import annotations

import pytest

from agents.web.memory import gather_memory, record_run, similar_trajectories
from browser.trajectory import TrajectoryStep
from core.embeddings import HashingEmbeddings
from core.web_context import WebAgentContext
from memory.agent_memory import AgentMemory
from memory.reflections.schema import Reflection, ReflectionJudgment
from memory.stores.project_store import open_project_store
from memory.trajectories import trajectory_from_web_steps
from memory.workflows.types import Provenance, Workflow

FLOOR = 0.3  # for the model-free hashing embeddings (bag of words), as in test_workflow_retrieval
STEPS = ["click('a')", "click('b')"]
TASK = "pay for the items in the cart"


def _step(action: str = "click [1]") -> TrajectoryStep:
    return TrajectoryStep(1, "obs", "http://shop/", action, action, True)


@pytest.fixture
def store(tmp_path):
    with open_project_store(tmp_path, "hashing") as store:
        memory = AgentMemory(store)
        memory.put_workflows(
            "shop",
            [Workflow("checkout_cart", "pay for the items in the cart", STEPS, Provenance())],
        )
        run = trajectory_from_web_steps(
            TASK, [_step()], website="shop", success=True, judged_by="evaluator"
        )
        memory.record_trajectory(run)
        judgment = ReflectionJudgment(needs_retry=False, confidence=0.9)
        memory.save_reflection(
            Reflection(task=TASK, reflection="Open the cart first.", judgment=judgment)
        )
        yield store


def _memory(store, task: str, floor: float) -> dict[str, str]:
    ctx = WebAgentContext(embedding_model="hashing", min_relevance=floor)
    memory = AgentMemory(store, ctx.memory_namespace, min_relevance=floor)
    return gather_memory(memory, ctx, task, "shop", None)


def test_an_unrelated_task_gets_no_workflow_no_past_run_and_no_lesson(store):
    memory = _memory(store, "search a product by its name", FLOOR)
    assert memory == {"reflections": "", "workflows": "", "trajectories": ""}


def test_a_related_task_still_gets_them(store):
    memory = _memory(store, "pay for the cart items", FLOOR)
    assert "checkout_cart" in memory["workflows"]
    assert "pay for the items in the cart" in memory["trajectories"]
    assert "Open the cart first." in memory["reflections"]


def test_the_floor_is_the_contexts_setting(store):
    memory = _memory(store, "search a product by its name", -1.0)  # no floor
    assert "checkout_cart" in memory["workflows"] and memory["trajectories"]
    assert memory["reflections"]


def test_similar_trajectories_floor_applies_to_embedding_similarity(store):
    runs = AgentMemory(store).trajectories("shop", successful_only=False)
    emb = HashingEmbeddings(256)
    assert similar_trajectories(runs, "search a product", k=2, embeddings=emb)  # no floor given
    kept = similar_trajectories(runs, "search a product", k=2, embeddings=emb, min_relevance=FLOOR)
    assert kept == []


def test_a_finished_run_is_recorded_and_learned_from_through_the_store(store, tmp_path):
    ctx = WebAgentContext(embedding_model="hashing", online_induction="rule")
    steps = [_step("type [3] [ada] [0]"), _step("click [4]")]
    task = 'Enter the username "ada" and log in'
    rid = record_run(
        AgentMemory(store), ctx, task, steps, website="login", success=True, judged_by="evaluator"
    )
    runs = AgentMemory(store).trajectories("login", successful_only=False)
    assert [r.id for r in runs] == [rid] and runs[0].judged_by == "evaluator"
    learned = AgentMemory(store).workflows("login")
    assert len(learned) == 1 and learned[0].provenance.origin == "online-rule"
    assert "{username}" in "\n".join(learned[0].steps)


def test_a_frozen_or_storeless_run_records_nothing(store, tmp_path):
    frozen = WebAgentContext(record_runs=False)
    outcome = {"website": "x", "success": True, "judged_by": "evaluator"}
    assert record_run(AgentMemory(store), frozen, "t", [_step()], **outcome) is None
    assert record_run(AgentMemory(None), WebAgentContext(), "t", [_step()], **outcome) is None
    assert AgentMemory(store).trajectories("x", successful_only=False) == []
