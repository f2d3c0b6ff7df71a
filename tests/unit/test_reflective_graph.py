"""The reflective and single-path graphs end to end on a scripted model (no network)."""

from __future__ import annotations

import re
from contextlib import contextmanager

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.memory import InMemoryStore

from agents import resources
from agents.tools.grounding import make_search_tool
from core import models
from core.context import Context
from graphs import build_reflective_graph, build_single_path_graph
from tests.unit.fakes import HashEmbeddings, ScriptedChatModel

TASKS = [
    "Find the birth year of Ada Lovelace",
    "Find what Ada Lovelace wrote about the Analytical Engine",
    "Find who built the Analytical Engine design",
]
DOCS = {"ada": "Ada Lovelace was born in 1815. She wrote notes on Babbage's Analytical Engine."}


class Script:
    """Answers by role; `verdicts` is the reflector's sequence of needs_retry values."""

    def __init__(self, verdicts: list[bool], *, use_tools: bool = True, searches: int = 1) -> None:
        self.verdicts = list(verdicts)
        self.searches = searches
        self.use_tools = use_tools
        self.attempts: dict[str, int] = {}
        self.executor_prompts: list[str] = []

    def __call__(self, prompt, title, tools, messages):
        if title == "Goal":
            return {"description": "Explain who Ada Lovelace was and what she did"}
        if title == "OptimizedGoal":
            return {
                "description": "Report Ada Lovelace's birth year and her work",
                "metrics": ["year given"],
            }
        if title == "DecomposedTasks":
            return {"tasks": TASKS + ["  ", TASKS[0]]}  # junk and a duplicate are dropped
        if title == "ReflectionOutput":
            needs_retry = self.verdicts.pop(0) if self.verdicts else False
            return {
                "reflection": f"Verdict {needs_retry}: cite the source.",
                "needs_retry": needs_retry,
                "confidence": 0.9,
                "reasons": ["checked"],
            }
        if tools:
            task = re.search(r"<task>\n(.*?)\n</task>", prompt, re.S).group(1)
            done = sum(m.type == "tool" for m in messages)
            if self.use_tools and done < self.searches:
                if not done:
                    self.executor_prompts.append(prompt)
                return {"tool": "corpus_search", "args": {"query": f"{task} {done}"}}
            if not self.use_tools:
                return "I think so."  # no tool call: the executor must ground it
            self.attempts[task] = self.attempts.get(task, 0) + 1
            return f"attempt {self.attempts[task]} for {task}: born 1815 (source: ada)"
        if "<search_results>" in prompt:
            return "grounded: born 1815 (source: ada)"
        if "<answer_shape>" in prompt:
            return "FINAL: Ada Lovelace, born 1815."
        return "A direct answer, then facts with sources."


@pytest.fixture
def wire(monkeypatch):
    """Point every node at a scripted model and a fake corpus tool; `use.store` is the
    vector-indexed InMemoryStore the graphs are compiled with."""
    tool = make_search_tool(
        lambda q, k: DOCS["ada"], name="corpus_search", description="Search local documents.", k=3
    )

    @contextmanager
    def fake_tools(ctx):
        yield [tool]

    monkeypatch.setattr(resources, "open_tools", fake_tools)

    def use(script: Script) -> ScriptedChatModel:
        model = ScriptedChatModel(responder=script, calls=[])
        monkeypatch.setattr(models, "get_chat_model", lambda spec: model)
        return model

    use.store = new_store()
    return use


def new_store() -> InMemoryStore:
    return InMemoryStore(index={"dims": 256, "embed": HashEmbeddings(256)})


def _run(builder, ctx, query="Who was Ada Lovelace?", store=None):
    graph = builder.compile(checkpointer=InMemorySaver(), store=store)
    config = {"configurable": {"thread_id": "t"}}
    nodes, snapshots = [], []
    for mode, chunk in graph.stream(
        {"query": query}, config, context=ctx, stream_mode=["updates", "values"]
    ):
        if mode == "updates":
            nodes.extend(chunk)
        else:
            snapshots.append(dict(chunk))
    return nodes, snapshots, graph.get_state(config).values


def test_retry_once_then_pass(wire):
    script = Script([True, False, False, False])
    wire(script)
    nodes, snaps, state = _run(
        build_reflective_graph(), Context(max_retries=2, workflows_k=0), store=wire.store
    )

    assert nodes == [
        "goal_setting",
        "decompose_query",
        "execute_task",
        "reflect_on_task",
        "execute_task",
        "reflect_on_task",
        "update_task_index",
        "execute_task",
        "reflect_on_task",
        "update_task_index",
        "execute_task",
        "reflect_on_task",
        "aggregate_results",
    ]
    assert state["tasks"] == TASKS
    assert len(state["results"]) == 3
    assert state["results"][0].startswith("attempt 2 for")  # the retry replaced attempt 1
    assert len(state["reflection_ids"]) == 4
    assert state["final_output"] == "FINAL: Ada Lovelace, born 1815."
    retry_prompt = script.executor_prompts[1]
    assert "<previous_attempt>" in retry_prompt and "attempt 1 for" in retry_prompt
    assert "Verdict True: cite the source." in retry_prompt
    assert all(traj and traj[0]["tool"] == "corpus_search" for traj in state["trajectories"])


def test_state_follows_the_seed_walkthrough(wire):
    wire(Script([True, False, False, False]))
    _, snaps, _ = _run(
        build_reflective_graph(), Context(max_retries=2, workflows_k=0), store=wire.store
    )
    initial, after_goal, after_plan, after_exec, after_fail, after_retry, after_pass, after_next = (
        snaps[:8]
    )
    assert initial["query"] == "Who was Ada Lovelace?" and not initial.get("reflection_ids")
    assert after_goal["optimized_goal"] and after_goal["current_task_index"] == 0
    assert after_plan["tasks"] == TASKS
    assert len(after_exec["results"]) == 1 and after_exec["current_task_index"] == 0
    assert len(after_fail["reflection_ids"]) == 1 and after_fail["retry_count"] == 1
    assert len(after_retry["results"]) == 1 and after_retry["retry_count"] == 1
    assert len(after_pass["reflection_ids"]) == 2 and after_pass["retry_count"] == 0
    assert after_next["current_task_index"] == 1 and after_next["retry_count"] == 0


def test_retries_run_out_and_each_task_starts_fresh(wire):
    wire(Script([True] * 20))
    nodes, snaps, state = _run(
        build_reflective_graph(), Context(max_retries=2, workflows_k=0), store=wire.store
    )
    assert nodes.count("execute_task") == 9  # 3 tasks × (1 attempt + 2 retries)
    assert nodes.count("reflect_on_task") == 9
    assert nodes[-1] == "aggregate_results" and state["final_output"]
    assert len(state["results"]) == 3
    assert all(r.startswith("attempt 3 for") for r in state["results"])


def test_max_retries_zero_never_retries(wire):
    wire(Script([True] * 5))
    nodes, _, _ = _run(
        build_reflective_graph(), Context(max_retries=0, workflows_k=0), store=wire.store
    )
    assert nodes.count("execute_task") == 3


def test_model_without_tool_calls_is_grounded(wire):
    wire(Script([False] * 5, use_tools=False))
    _, _, state = _run(build_reflective_graph(), Context(workflows_k=0), store=wire.store)
    assert all(r.startswith("grounded:") for r in state["results"])
    assert state["trajectories"][0][0]["observation"].count("1815")


def test_single_path_has_no_reflection(wire):
    wire(Script([True] * 5))
    nodes, _, state = _run(build_single_path_graph(), Context(workflows_k=0), store=wire.store)
    assert "reflect_on_task" not in nodes
    assert nodes.count("execute_task") == 3 and state["final_output"]
    assert not state.get("reflection_ids")


def test_unusable_model_output_falls_back_without_crashing(wire):
    wire(lambda prompt, title, tools, messages: "not json at all")
    nodes, _, state = _run(
        build_reflective_graph(), Context(max_retries=1, workflows_k=0), store=wire.store
    )
    assert state["tasks"]  # the goal became the single task
    assert nodes[-1] == "aggregate_results" and state["final_output"]


def test_successful_tasks_become_workflows_the_next_run_sees(wire):
    """Online induction: passed attempts leave trajectories → workflows → next prompts."""
    script = Script([False] * 20, searches=2)  # AWM keeps workflows of 2+ steps
    wire(script)
    ctx = Context(induction="rule")
    _run(build_reflective_graph(), ctx, store=wire.store)
    workflows = wire.store.search(("workflows", "research"))
    assert workflows, "no workflow was induced from the successful tasks"
    assert all(len(w.value["steps"]) >= 2 for w in workflows)
    trajectories = wire.store.search(("trajectories", "research"), limit=100)
    assert len(trajectories) == 3 and all(t.value["success"] for t in trajectories)
    script.executor_prompts.clear()
    _run(build_reflective_graph(), ctx, query="Who was Ada Lovelace, again?", store=wire.store)
    assert (
        "corpus_search"
        in script.executor_prompts[0].split("<workflows>")[1].split("</workflows>")[0]
    )


def test_the_store_holds_the_runs_reflections(wire):
    """compile(store=InMemoryStore()): the run's reflections are items under ("reflections", ns)."""
    wire(Script([True, False, False, False]))
    ctx = Context(max_retries=2, memory_namespace="proj/alice")
    _, _, state = _run(build_reflective_graph(), ctx, store=wire.store)
    items = wire.store.search(("reflections", "proj", "alice"), limit=100)
    assert {i.key for i in items} == set(state["reflection_ids"]) and len(items) == 4
    assert all(i.namespace == ("reflections", "proj", "alice") for i in items)
    verdicts = sorted(i.value["judgment"]["needs_retry"] for i in items)
    assert verdicts == [False, False, False, True]
    assert {i.value["task"] for i in items} == set(TASKS)
    assert wire.store.list_namespaces(prefix=("reflections",)) == [("reflections", "proj", "alice")]


def test_a_graph_without_a_store_runs_with_memory_off(wire, caplog):
    wire(Script([False] * 5))
    with caplog.at_level("INFO"):
        _, _, state = _run(build_reflective_graph(), Context(max_retries=0))
    assert state["final_output"] == "FINAL: Ada Lovelace, born 1815."
    assert len(state["reflection_ids"]) == 3  # judged, though nothing could be saved
    assert sum("memory is off" in r.getMessage() for r in caplog.records) == 1


def test_memory_from_an_earlier_run_reaches_the_next_prompts(wire):
    script = Script([True, False] + [False] * 10)
    model = wire(script)
    _run(build_reflective_graph(), Context(max_retries=1), store=wire.store)
    model.calls.clear()
    _run(build_reflective_graph(), Context(max_retries=1), query="Ada Lovelace?", store=wire.store)
    goal_prompt = next(c["prompt"] for c in model.calls if c["title"] == "Goal")
    past = goal_prompt.split("<past_reflections>")[1].split("</past_reflections>")[0]
    assert "Verdict True: cite the source." in past or "Verdict False" in past
