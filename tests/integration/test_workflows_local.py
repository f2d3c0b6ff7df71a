"""Workflow memory with the real embedded parts: induction on the fast test model (SmolLM2-135M)
and MiniLM retrieval."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from core.model_catalogue import TEST_MODEL
from core.models import Models
from memory.agent_memory import AgentMemory
from memory.exchange import export_memory
from memory.stores.project_store import open_project_store
from memory.workflows.format import extract_workflow_section, looks_like_action, parse_workflows
from memory.workflows.offline import Example, induce_offline, mind2web_prompt_examples
from memory.workflows.retrieval import relevant_workflows_text
from prompts.workflows import WORKED_EXAMPLE_WORKFLOW_NAMES

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
AWM = ROOT / "tests" / "data" / "awm"
MODEL = f"local:{TEST_MODEL}"  # the subject is the induction pipeline, not the model's answers


@pytest.fixture(scope="module")
def models() -> Models:
    return Models()


@pytest.fixture(scope="module")
def local_model(models: Models):
    # Only a missing optional part skips: a model that crashes or answers badly fails the test.
    pytest.importorskip("llama_cpp", reason="the embedded model needs llama-cpp-python")
    return models.chat(MODEL)


def test_offline_induction_with_the_embedded_model(tmp_path: Path, local_model) -> None:
    model = local_model
    data = mind2web_prompt_examples((AWM / "mind2web_prompt_one_shot_action.txt").read_text())
    examples = [Example.model_validate(d) for d in data]
    started = time.monotonic()
    with open_project_store(tmp_path, "hashing") as store:  # retrieval is not the subject
        memory = AgentMemory(store)
        report = induce_offline(examples, model=model, memory=memory, spec=MODEL)
        elapsed = time.monotonic() - started
        assert memory.workflow_updates()[-1]["website"] == "delta"
        export_memory(memory, tmp_path / "export")
        stored = memory.workflows("delta")
    result = report.per_website["delta"]
    print(
        f"\ninduced in {elapsed:.1f}s, examples {result.examples_used}/{result.examples_total}; "
        f"kept {[w.name for w in result.kept]}; dropped {result.dropped}\n{result.raw}"
    )
    assert result.examples_used >= 1
    assert result.raw, "the model gave no parseable structured answer in two attempts"
    path = tmp_path / "export" / "workflows" / "delta.txt"
    assert result.kept, f"no workflow survived post-processing: {result.dropped}"
    parsed = parse_workflows(path.read_text(), where=str(path))
    assert parsed.problems == []
    assert [w.name for w in parsed.workflows] == [w.name for w in result.kept]
    for w in stored:
        assert len(w.steps) >= 2 and all(looks_like_action(s) for s in w.steps)
        assert w.name not in WORKED_EXAMPLE_WORKFLOW_NAMES
    assert len({w.name for w in stored}) == len(stored)


def test_semantic_retrieval_with_real_embeddings(tmp_path: Path, models: Models) -> None:
    text, _ = extract_workflow_section((AWM / "mind2web_prompt_one_shot_action.txt").read_text())
    with open_project_store(tmp_path, "local", models=models) as store:
        memory = AgentMemory(store)
        memory.put_workflows("delta", parse_workflows(text).workflows)
        web, _ = extract_workflow_section((AWM / "webarena_prompt_one_shot.txt").read_text())
        memory.put_workflows("shopping", parse_workflows(web).workflows)
        cases = {
            "enter the departure and arrival cities of my flight": "enter_flight_locations",
            "look up my booking using the confirmation code": "find_trip",
            "show all the orders I have placed": "find_all_orders",
            "browse a product category in the store": "browse_products_in_a_specific_sub_category",
        }
        for query, expected in cases.items():
            first = relevant_workflows_text(query, store=store, k=2).split("\n")[0]
            assert first == f"## {expected}", (query, first)
