"""Tasks fan out in parallel, dependents wait and see what they need, Studio sees the run."""

from __future__ import annotations

import threading
import time

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from core.state import STATE_KEYS
from graphs import build_reflective_graph, build_single_path_graph, reflective_graph
from tests.unit.research_script import DOCS, TASK_LINE, TASKS, Script, run

DEPENDENT_PLAN = [
    {"task": TASKS[0], "depends_on": []},
    {"task": TASKS[1], "depends_on": []},
    {"task": TASKS[2], "depends_on": [1, 2, 3, 7]},  # 3 (itself) and 7 (no such task) dropped
]


def test_independent_tasks_run_in_one_wave_and_dependents_wait(wire):
    script = Script(plan=DEPENDENT_PLAN)
    wire(script)
    _, updates, state = run(
        build_reflective_graph(), wire.context(max_concurrency=4), store=wire.store
    )
    waves = [u["current_tasks"] for node, u in updates if node == "schedule_tasks"]
    assert waves == [[0, 1], [2], []]
    assert state["depends_on"] == [[], [], [0, 1]]
    dependent = next(p for p in script.executor_prompts if f"<task>\n{TASKS[2]}" in p)
    section = dependent.split("<results_this_task_builds_on>")[1]
    assert f"attempt 1 for {TASKS[0]}" in section and f"attempt 1 for {TASKS[1]}" in section


def test_max_concurrency_one_runs_the_same_graph_one_task_at_a_time(wire):
    wire(Script())
    _, updates, state = run(
        build_reflective_graph(), wire.context(max_concurrency=1), store=wire.store
    )
    waves = [u["current_tasks"] for node, u in updates if node == "schedule_tasks"]
    assert waves == [[0], [1], [2], []]
    assert len(state["results"]) == 3


def test_parallel_tasks_overlap_in_time(wire):
    """With a slow model, three independent tasks are in the executor at the same time."""
    script = Script()
    inside, peak, lock = [0], [0], threading.Lock()

    def slow(prompt, title, tools, messages):
        if tools:
            with lock:
                inside[0] += 1
                peak[0] = max(peak[0], inside[0])
            time.sleep(0.2)
            with lock:
                inside[0] -= 1
        return script(prompt, title, tools, messages)

    script.plan = [TASKS[0], TASKS[1], "Find who built the Analytical Engine design"]
    wire(slow)
    run(build_reflective_graph(), wire.context(max_retries=0, max_concurrency=4), store=wire.store)
    assert peak[0] == 3  # the three steps; the request waits for them


def test_updates_carry_goal_tasks_running_tasks_and_counters(wire):
    """No output-schema filter: each node's update shows the state keys it wrote."""
    wire(Script({0: [True, False]}))
    _, updates, _ = run(build_reflective_graph(), wire.context(max_concurrency=4), store=wire.store)
    by_node = {}
    for node, update in updates:
        by_node.setdefault(node, []).append(update)
    assert by_node["goal_setting"][0]["optimized_goal"].startswith("Explain who Ada")
    assert by_node["decompose_query"][0]["tasks"] == TASKS
    assert by_node["schedule_tasks"][0]["current_tasks"] == [0, 1]  # the request waits
    reports = [u["task_reports"] for u in by_node["run_task"]]
    first = next(r for r in reports if 0 in r or "0" in r)
    report = first.get(0) or first.get("0")
    assert report["attempts"] == 2 and report["retries"] == 1


def test_the_executor_agent_is_a_visible_subgraph(wire):
    assert [name for name, _ in reflective_graph.get_subgraphs(recurse=True)] == [
        "run_task",
        "run_task|execute_task",
    ]
    wire(Script())
    graph = build_single_path_graph().compile()
    namespaces = set()
    for namespace, _ in graph.stream(
        {"query": "q?"},
        context=wire.context(max_concurrency=4),
        stream_mode="updates",
        subgraphs=True,
    ):
        namespaces.add(tuple(n.split(":")[0] for n in namespace))
    assert ("run_task", "execute_task") in namespaces  # the agent's model and tool steps
    assert ("run_task",) in namespaces and () in namespaces


def test_the_tool_step_limit_keeps_the_evidence(wire):
    script = Script(searches=100)  # never stops searching by itself
    model = wire(script)
    _, _, state = run(build_reflective_graph(), wire.context(max_tool_steps=2), store=wire.store)
    assert all(r.startswith("from evidence: ") for r in state["results"])
    assert all("1815" in r for r in state["results"])  # the corpus text the tools returned
    runs = wire.store.search(("trajectories", "research"), limit=10)
    by_judge = sorted((r.value["judged_by"], len(r.value["steps"])) for r in runs)
    # the search for the task before the agent started, then the agent's two tool steps; the
    # run's own trajectory holds all three tasks' (a paragraph answer is not checked: unjudged)
    assert by_judge == [("reflection", 3)] * 3 + [("unjudged", 9)]
    # two tool steps each, then no further agent call: one answer from the evidence per task
    assert len([c for c in model.calls if c["tools"]]) == 3 * 2
    final_calls = [c for c in model.calls if "Answer the task using only" in c["prompt"]]
    assert len(final_calls) == 3 and not any(c["tools"] for c in final_calls)


def test_a_resumed_run_never_reruns_a_finished_task(wire):
    """A crash in task 3's reflection; the resumed run redoes only what had not finished."""
    script = Script(plan=[TASKS[0], TASKS[1], {"task": TASKS[2], "depends_on": [1, 2]}])
    crashed = []

    def crash_once(prompt, title, tools, messages):
        if title == "ReflectionOutput" and _task_of(prompt) == TASKS[2] and not crashed:
            crashed.append(True)
            raise RuntimeError("process died")  # not a transient error: the run stops
        return script(prompt, title, tools, messages)

    wire(crash_once)
    graph = build_reflective_graph().compile(checkpointer=InMemorySaver(), store=wire.store)
    config = {"configurable": {"thread_id": "crash"}}
    with pytest.raises(RuntimeError, match="process died"):
        graph.invoke(
            {"query": "Who was Ada Lovelace?"},
            config,
            context=wire.context(),
            output_keys=STATE_KEYS,
        )
    assert script.attempts == {TASKS[0]: 1, TASKS[1]: 1, TASKS[2]: 1}
    state = graph.invoke(None, config, context=wire.context(), output_keys=STATE_KEYS)
    assert script.attempts == {TASKS[0]: 1, TASKS[1]: 1, TASKS[2]: 1}  # nothing re-executed
    assert state["final_output"] and len(state["reflection_ids"]) == 3
    assert len(wire.store.search(("reflections", "default"), limit=10)) == 3
    assert (
        DOCS["ada"][:10]
        in wire.store.search(("trajectories", "research"))[0].value["steps"][0]["observation"]
    )


def _task_of(prompt: str) -> str:
    return TASK_LINE.search(prompt).group(1)


def test_the_request_is_always_the_last_task_and_waits_for_every_step():
    from agents.research.decompose_query import DecomposedTasks, PlannedTask, clean_tasks

    steps = [PlannedTask(task=TASKS[0]), PlannedTask(task=TASKS[1], depends_on=[1])]
    assert clean_tasks(steps, "  Who was Ada Lovelace?\n") == (
        [TASKS[0], TASKS[1], "Who was Ada Lovelace?"],
        [[], [0], [0, 1]],
    )
    # a step that restates the request is the request's own task, not a second one
    restated = [PlannedTask(task="who was ada lovelace"), PlannedTask(task=TASKS[0])]
    assert clean_tasks(restated, "Who was Ada Lovelace?") == (
        [TASKS[0], "Who was Ada Lovelace?"],
        [[], [0]],
    )
    # a request about one fact: no step, the request alone
    assert clean_tasks([], "When was Ada Lovelace born?") == (["When was Ada Lovelace born?"], [[]])
    # more than four steps: the plan is kept, cut to four, and the request still comes last
    many = DecomposedTasks.model_validate(
        {"tasks": [f"Find fact number {i} here" for i in range(6)]}
    )
    tasks, _ = clean_tasks(many.tasks, "Q about facts?")
    assert len(tasks) == 5 and tasks[-1] == "Q about facts?"
