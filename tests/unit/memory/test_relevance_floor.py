"""The relevance floor: memories on one subject never reach the prompts of an unrelated run.

These runs use the model-free hashing embeddings (bag of words), whose unrelated short texts
still share "find the … of": they get a floor of their own (FLOOR). The default floor,
calibrated for MiniLM, is tested on MiniLM in tests/integration/test_relevance_floor_local.py.
"""

from __future__ import annotations

import json

import numpy as np

from graphs import build_reflective_graph
from memory.agent_memory import AgentMemory
from memory.reflections.schema import Reflection, ReflectionJudgment
from memory.workflows.types import Provenance, Workflow
from prompts.research import NO_MEMORY
from tests.unit.research_script import Script, run

ADA_LESSONS = [
    ("Find the birth year of Ada Lovelace", "Ada Lovelace was born in 1815; cite her biography."),
    ("Find what Ada Lovelace wrote about the Analytical Engine", "Her notes on the engine."),
    ("Find who built the Analytical Engine design", "Babbage designed the Analytical Engine."),
    ("Find Ada Lovelace's parents", "Ada Lovelace was the daughter of Lord Byron."),
]
FLOOR = 0.45
ETHANOL_TASKS = [
    "Find the boiling point of ethanol at sea level",
    "Find the freezing point of ethanol",
    "Find how ethanol is produced by fermentation of sugars",
]


class EthanolScript(Script):
    """A run about chemistry: its goal and tasks share no subject with the stored memories."""

    def __call__(self, prompt, title, tools, messages):
        if title == "Goal":
            return {"description": "Report the boiling and freezing points of ethanol"}
        if title == "OptimizedGoal":
            return {"description": "State ethanol's boiling point in Celsius", "metrics": ["°C"]}
        return super().__call__(prompt, title, tools, messages)


def _fill(store) -> None:
    memory = AgentMemory(store)
    for task, lesson in ADA_LESSONS * 3:
        judgment = ReflectionJudgment(needs_retry=False, confidence=0.9, verdict="pass")
        memory.save_reflection(Reflection(task=task, reflection=lesson, judgment=judgment))
    workflow = Workflow(
        "find_ada_lovelace_facts",
        "Search the documents about Ada Lovelace, then open her biography",
        ["corpus_search('Ada Lovelace {fact}')", "browser_open('{biography-url}')"],
        Provenance(website="research"),
    )
    memory.put_workflows("research", [workflow])


def _sections(prompt: str, tag: str) -> str:
    return prompt.split(f"<{tag}>\n")[1].split(f"\n</{tag}>")[0]


def test_an_unrelated_run_sees_none_of_another_subjects_memories(wire):
    model = wire(EthanolScript(plan=ETHANOL_TASKS))
    _fill(wire.store)
    ctx = wire.context(max_retries=0, min_relevance=FLOOR)
    run(build_reflective_graph(), ctx, "What is ethanol's boiling point?", store=wire.store)
    with_memory = [c["prompt"] for c in model.calls if "<past_reflections>" in c["prompt"]]
    assert len(with_memory) >= 10  # every node's prompt has the sections…
    for prompt in with_memory:  # …and none of them carries the other subject's memories
        assert "Lovelace" not in _sections(prompt, "past_reflections")
        assert "Lovelace" not in _sections(prompt, "workflows")  # its own may come later
    assert _sections(with_memory[0], "past_reflections") == NO_MEMORY  # before its own lessons
    assert _sections(with_memory[0], "workflows") == NO_MEMORY


def test_a_related_run_still_gets_them(wire):
    model = wire(Script())
    _fill(wire.store)
    ctx = wire.context(max_retries=0, min_relevance=FLOOR)
    run(build_reflective_graph(), ctx, "Who was Ada Lovelace?", store=wire.store)
    executor = [c["prompt"] for c in model.calls if c["tools"]]
    lessons = [lesson for _, lesson in ADA_LESSONS]
    assert any(x in _sections(p, "past_reflections") for p in executor for x in lessons)
    assert any("find_ada_lovelace_facts" in _sections(p, "workflows") for p in executor)


def test_the_floor_is_a_context_setting(wire):
    model = wire(EthanolScript(plan=ETHANOL_TASKS))
    _fill(wire.store)
    ctx = wire.context(max_retries=0, min_relevance=-1.0)  # no floor: everything is "relevant"
    run(build_reflective_graph(), ctx, "What is ethanol's boiling point?", store=wire.store)
    assert any("Lovelace" in c["prompt"] for c in model.calls)


def test_the_calibration_bench_runs_on_real_questions(capsys):
    from bench import relevance_floor

    relevance_floor.main(["--json", "--embedding-model", "hashing", "--limit", "8"])
    result = json.loads(capsys.readouterr().out)
    assert result["questions"] == 8 and -1 <= result["floor"] <= 1
    assert result["related"]["n"] >= 16 and result["unrelated"]["n"] > result["related"]["n"]
    assert result["related"]["mean"] > result["distractor"]["mean"] > result["unrelated"]["mean"]


def test_the_bench_lists_the_nearest_question_forms(capsys):
    from bench import relevance_floor

    relevance_floor.main(["--json", "--embedding-model", "hashing", "--limit", "8", "--forms", "3"])
    result = json.loads(capsys.readouterr().out)
    assert result["questions"] == 8 and result["same_form"] == 0  # 8 questions, 8 forms
    sims = [s for s, _, _ in result["nearest"]]
    assert len(sims) == 3 and sims == sorted(sims, reverse=True)
    assert all("…" in a and "…" in b for _, a, b in result["nearest"])


def test_best_floor_separates_two_clean_groups():
    from bench.relevance_floor import best_floor

    assert best_floor(np.array([0.6, 0.7, 0.8]), np.array([0.1, 0.2, 0.3])) == 0.6
