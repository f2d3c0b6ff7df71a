"""The reflective and single-path graphs end to end on a scripted model (no network)."""

from __future__ import annotations

import pytest
from langgraph.store.memory import InMemoryStore

from core.state import STATE_KEYS
from graphs import build_reflective_graph, build_single_path_graph
from memory.unindexed import MemoryOffWarning
from tests.unit.research_script import TASKS, Script, past_reflections_seen_next, run, wire

__all__ = ["TASKS", "Script", "wire"]  # other test modules import these from here


def test_retry_once_then_pass(wire):
    script = Script({0: [True, False]})
    wire(script)
    nodes, _, state = run(build_reflective_graph(), wire.context(max_retries=2), store=wire.store)

    assert nodes[:2] == ["goal_setting", "decompose_query"]
    assert nodes.count("execute_task") == 4 and nodes.count("reflect_on_task") == 4
    assert nodes[-3:] == ["aggregate_results", "check_answer", "reflect_on_answer"]
    assert state["tasks"] == TASKS  # junk and a duplicate were dropped
    assert state["results"][0].startswith("attempt 2 for")  # the retry replaced attempt 1
    assert [r["attempts"] for r in state["task_reports"]] == [2, 1, 1]
    assert [r["verdict"] for r in state["task_reports"]] == ["pass"] * 3
    assert len(state["reflection_ids"]) == 4
    assert state["final_output"] == "FINAL: Ada Lovelace, born 1815.\n\nSources: ada.md, notes.md"
    retry_prompt = next(p for p in script.executor_prompts if "<previous_attempt>" in p)
    assert "attempt 1 for Find the birth year" in retry_prompt
    assert "Verdict true: cite the source." in retry_prompt


def test_retries_run_out_per_task(wire):
    script = Script()
    script.default_verdict = True
    wire(script)
    nodes, _, state = run(build_reflective_graph(), wire.context(max_retries=2), store=wire.store)
    assert nodes.count("execute_task") == 9  # 3 tasks × (1 attempt + 2 retries), own counters
    assert nodes[-3:] == ["aggregate_results", "check_answer", "reflect_on_answer"]
    assert state["final_output"]
    assert all(r.startswith("attempt 3 for") for r in state["results"])
    assert [r["verdict"] for r in state["task_reports"]] == ["fail"] * 3
    assert [r["retries"] for r in state["task_reports"]] == [2] * 3


def test_max_retries_zero_never_retries(wire):
    script = Script()
    script.default_verdict = True
    wire(script)
    nodes, _, _ = run(build_reflective_graph(), wire.context(max_retries=0), store=wire.store)
    assert nodes.count("execute_task") == 3


def test_the_executor_starts_from_what_a_search_for_the_task_found(wire):
    script = Script(use_tools=False)  # answers at once, with no tool call
    model = wire(script)
    _, _, state = run(build_reflective_graph(), wire.context(), store=wire.store)
    assert state["results"] == ["I think so."] * 3  # one call per attempt
    executor_calls = [c for c in model.calls if c["tools"]]
    assert len(executor_calls) == 3
    for call in executor_calls:  # each prompt held the corpus text found for its task
        assert "<search_results_for_the_task>" in call["prompt"] and "1815" in call["prompt"]
    runs = wire.store.search(("trajectories", "research"), limit=10)
    assert all(r.value["steps"][0]["action"].startswith("search(") for r in runs)


def test_single_path_has_no_reflection(wire):
    script = Script()
    script.default_verdict = True
    wire(script)
    nodes, _, state = run(build_single_path_graph(), wire.context(), store=wire.store)
    assert "reflect_on_task" not in nodes
    assert nodes.count("execute_task") == 3 and state["final_output"]
    assert not state.get("reflection_ids")
    assert [r["verdict"] for r in state["task_reports"]] == ["done"] * 3


def test_unusable_verdicts_are_recorded_as_unjudged_and_never_taught(wire):
    def script(prompt, title, tools, messages):
        if title == "ReflectionOutput":
            return "not json at all"
        return Script(searches=2)(prompt, title, tools, messages)

    wire(script)
    _, _, state = run(build_reflective_graph(), wire.context(max_retries=1), store=wire.store)
    assert state["tasks"] and state["final_output"]
    assert [r["verdict"] for r in state["task_reports"]] == ["unjudged"] * 3
    items = wire.store.search(("reflections", "default"), limit=50)
    assert len(items) == 3 and all(i.value["judgment"]["verdict"] == "unjudged" for i in items)
    runs = wire.store.search(("trajectories", "research"), limit=50)
    # each task's attempt, and the run's (a paragraph answer is not checked: unjudged too)
    assert len(runs) == 4 and not any(r.value["success"] for r in runs)
    assert all(r.value["judged_by"] == "unjudged" for r in runs)
    assert wire.store.search(("workflows", "research")) == []  # nothing learned from them


def test_successful_tasks_become_workflows_the_next_run_sees(wire):
    """Online induction: passed attempts leave trajectories → workflows → next prompts."""
    script = Script(searches=2)  # AWM keeps workflows of 2+ steps
    wire(script)
    ctx = wire.context(induction="rule")
    run(build_reflective_graph(), ctx, store=wire.store)
    workflows = wire.store.search(("workflows", "research"))
    assert workflows, "no workflow was induced from the successful tasks"
    assert all(len(w.value["steps"]) >= 2 for w in workflows)
    trajectories = wire.store.search(("trajectories", "research"), limit=100)
    judged = [t.value["success"] for t in trajectories if t.value["judged_by"] == "reflection"]
    assert judged == [True] * 3
    script.executor_prompts.clear()
    run(build_reflective_graph(), ctx, query="Who was Ada Lovelace, again?", store=wire.store)
    section = script.executor_prompts[0].split("<workflows>")[1].split("</workflows>")[0]
    assert "corpus_search" in section


def test_the_store_holds_the_runs_reflections(wire):
    """compile(store=InMemoryStore()): the run's reflections are items under ("reflections", ns)."""
    wire(Script({0: [True, False]}))
    ctx = wire.context(max_retries=2, memory_namespace="proj/alice")
    _, _, state = run(build_reflective_graph(), ctx, store=wire.store)
    items = wire.store.search(("reflections", "proj", "alice"), limit=100)
    assert {i.key for i in items} == set(state["reflection_ids"]) and len(items) == 4
    assert all(i.namespace == ("reflections", "proj", "alice") for i in items)
    assert sorted(i.value["judgment"]["needs_retry"] for i in items) == [False] * 3 + [True]
    assert {i.value["task"] for i in items} == set(TASKS)
    assert sorted((i.value["task_index"], i.value["attempt"]) for i in items) == [
        (0, 1),
        (0, 2),
        (1, 1),
        (2, 1),
    ]
    assert wire.store.list_namespaces(prefix=("reflections",)) == [("reflections", "proj", "alice")]


def test_a_graph_without_a_store_runs_with_memory_off_and_says_so(wire):
    wire(Script())
    with pytest.warns(MemoryOffWarning, match="compiled without a store") as seen:
        _, _, state = run(build_reflective_graph(), wire.context(max_retries=0))
    assert state["final_output"] == "FINAL: Ada Lovelace, born 1815.\n\nSources: ada.md, notes.md"
    assert len(state["reflection_ids"]) == 3  # judged, though nothing could be saved
    assert len(seen) == 1  # once per run


def test_a_store_without_an_index_recalls_with_the_run_s_embeddings(wire):
    model = wire(Script({0: [True, False]}))
    wire.store = InMemoryStore()  # no index=, as a new user writes it
    run(build_reflective_graph(), wire.context(max_retries=1), store=wire.store)
    assert "cite the source." in past_reflections_seen_next(model, wire)


def test_memory_from_an_earlier_run_reaches_the_next_prompts(wire):
    model = wire(Script({0: [True, False]}))
    run(build_reflective_graph(), wire.context(max_retries=1), store=wire.store)
    assert "cite the source." in past_reflections_seen_next(model, wire)


def test_a_second_run_on_the_same_thread_starts_clean(wire):
    wire(Script())
    graph = build_reflective_graph()
    from langgraph.checkpoint.memory import InMemorySaver

    compiled = graph.compile(checkpointer=InMemorySaver(), store=wire.store)
    config = {"configurable": {"thread_id": "same"}}
    first = compiled.invoke(
        {"query": "Who was Ada Lovelace?"}, config, context=wire.context(), output_keys=STATE_KEYS
    )
    second = compiled.invoke(
        {"query": "Who was Ada Lovelace?"}, config, context=wire.context(), output_keys=STATE_KEYS
    )
    assert len(first["reflection_ids"]) == len(second["reflection_ids"]) == 3
    assert set(first["reflection_ids"]).isdisjoint(second["reflection_ids"])
    assert len(second["results"]) == 3 and first["run_id"] != second["run_id"]
