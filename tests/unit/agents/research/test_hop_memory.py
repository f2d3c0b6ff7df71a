"""What a hop reads from memory: a question of a kind solved before is shown that chain's
reasoning (found by form: no other kind's), and a request answered before its own lessons."""

from __future__ import annotations

from graphs import build_reflective_graph
from memory.agent_memory import AgentMemory
from memory.reflections.schema import Reflection, ReflectionJudgment
from memory.workflows.types import Provenance, Workflow
from tests.unit.agents.research.test_compare import DIRECTOR, FILMS
from tests.unit.agents.research.test_hop import FIRST, ChainScript
from tests.unit.agents.research.test_hop_checks import _tools
from tests.unit.research_script import run, wire

__all__ = ["wire"]


def _solved(question: str, facts: list[str], answer: str, searches: int = 1):
    return Workflow(
        name=f"solved_{len(question)}_{searches}",
        description="A solved question of this kind",
        steps=[
            f"question: {question}",
            *(f"search: link {n}" for n in range(searches)),
            *(f"found: {f}" for f in facts),
            f"answer: {answer}",
        ],
        provenance=Provenance(website="research", origin="training", template="example: q"),
    )


def test_a_question_of_a_kind_solved_before_is_shown_that_chain_and_no_other(wire):
    """Memory holds two solved questions of the director kind (the shorter chain is shown)
    and one of another kind (never shown); goal setting makes no call (the kind's goal is
    known), every hop's prompt carries the chain, and the run names it among the memories
    that reached its prompts."""
    kind = "Which film has the director born first, Kolya or Metropolis?"
    reasoning = ["Kolya was directed by Jan Sverak.", "Metropolis was directed by Fritz Lang."]
    short, long_ = _solved(kind, reasoning, "Metropolis"), _solved(kind, ["X."], "Kolya", 3)
    other = _solved("Where was the director of film Kolya born?", ["Jan Sverak."], "Zlin")
    AgentMemory(wire.store).put_workflows("research", [long_, other, short])
    hop1 = (
        "Gniazdo was directed by Jan Rybkowski. The Summer of Massacre was directed by Joe "
        "Castro. So the answer is: Joe Castro."
    )
    model = wire(
        ChainScript(hop1, "Jan Rybkowski was born in 1912.", "Joe Castro was born in 1927.")
    )
    ctx = wire.context(**FIRST, tools=_tools(FILMS, k=2))
    _, _, state = run(build_reflective_graph(), ctx, query=DIRECTOR, store=wire.store)
    assert state["answer"] == "Gniazdo"
    shown = "Question: " + kind + "\nReasoning: " + " ".join(reasoning)
    hops = [c["prompt"] for c in model.calls]
    assert len(hops) == 2  # its goal known from its kind, no call sets it; the pages decide
    assert all(shown + " So the answer is: Metropolis." in p for p in hops)
    assert not any("Zlin" in p or "X. So the answer is: Kolya" in p for p in hops)
    assert state["recalled"] == [f"workflow:{short.name}"]


def test_a_request_answered_before_is_shown_its_own_lessons_and_no_others(wire):
    memory = AgentMemory(wire.store)
    for task, lesson in ((DIRECTOR, "Compare the directors' birth years."), ("Other?", "Nope.")):
        memory.save_reflection(
            Reflection(
                task=task,
                reflection=lesson,
                judgment=ReflectionJudgment(needs_retry=True, confidence=0.9),
            )
        )
    model = wire(ChainScript("So the answer is: Gniazdo."))
    ctx = wire.context(**FIRST, tools=_tools(FILMS, k=2))
    _, _, state = run(build_reflective_graph(), ctx, query=DIRECTOR, store=wire.store)
    hop_prompt = model.calls[1]["prompt"]
    assert "Compare the directors' birth years." in hop_prompt and "Nope." not in hop_prompt
    assert len(state["recalled"]) == 1
