"""A question of a kind solved before, on real parts: a worked example as ExpeL's training
writes it, in the project's SQLite store, is found by the meaning of the question's form with
MiniLM and reaches the embedded model's hop prompts (goal setting makes no call); a question
of another kind is shown nothing. The fast test model (SmolLM2-135M): the subject is the
wiring, not the answer."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.callbacks import BaseCallbackHandler

from agents.tools.corpus import save_passages
from core.model_catalogue import TEST_MODEL
from core.state import STATE_KEYS
from evals.common.memory_store import project_store
from evals.hotpotqa.dataset import load_hotpotqa
from evals.hotpotqa.expel_memory import Experience, worked_example
from graphs import Context, build_reflective_graph
from memory.agent_memory import AgentMemory
from tests.conftest import DATA

pytestmark = pytest.mark.integration
ROLES = ("planner_model", "executor_model", "reflector_model", "aggregator_model")


class Prompts(BaseCallbackHandler):
    """Every chat-model call's node and prompt text."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str]] = []

    def on_chat_model_start(self, _s: Any, messages: Any, *, metadata: Any = None, **_: Any):
        text = "\n".join(str(m.content) for batch in messages for m in batch)
        self.calls.append(((metadata or {}).get("langgraph_node", ""), text))


def test_a_solved_kind_reaches_the_real_models_hops_and_another_kind_sees_nothing(tmp_path):
    wiki = load_hotpotqa(DATA / "multihop" / "2wiki_dev250.json")
    kind = [q for q in wiki if q.question.startswith("Where was the director of film")]
    solved, asked = kind[0], kind[1]
    other = load_hotpotqa(DATA / "multihop" / "musique_dev100.json")[0]
    corpus = tmp_path / "corpus"
    save_passages([(p.title, p.text) for q in (asked, other) for p in q.paragraphs], corpus)
    chain = [{"facts": ["The film was directed by Jan Novak.", "Jan Novak was born in Brno."]}]
    example = worked_example(Experience(solved, 1, {"chain": chain, "cited": []}))
    ctx = Context(
        **dict.fromkeys(ROLES, f"local:{TEST_MODEL}"),
        corpus_dir=str(corpus),
        use_browser=False,
        max_hops=1,
        max_calls=3,  # each run is read for its first prompts: no longer than it needs
    )
    with project_store(str(tmp_path / "home"), "local") as store:
        AgentMemory(store).put_workflows("research", [example])
        graph = build_reflective_graph().compile(store=store)
        seen = {}
        for q in (asked, other):
            prompts = Prompts()
            out = graph.invoke(
                {"query": q.question},
                {"callbacks": [prompts]},
                context=ctx,
                output_keys=STATE_KEYS,
            )
            seen[q.id] = (prompts.calls, out)
    calls, out = seen[asked.id]
    assert [node for node, _ in calls][:1] == ["hop"]  # its goal known: goal setting made no call
    assert calls and all("<solved_before>" in p and solved.question in p for _, p in calls)
    assert "Jan Novak was born in Brno." in calls[0][1]
    assert f"workflow:{example.name}" in out["recalled"]
    calls, out = seen[other.id]
    assert calls[0][0] == "goal_setting"
    assert not any("<solved_before>" in p for _, p in calls)
    assert not any(r.startswith("workflow:") for r in out["recalled"])
