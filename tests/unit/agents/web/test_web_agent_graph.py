"""The web agent graph on scripted pages: the loop, limits, evaluator, judge, retries, release.

The graph runs on a scripted model and a scripted environment attached to the run's context
through agents.web.session (tests/unit/web_fakes.py: BrowserEnv's interface without chromium).
"""

from __future__ import annotations

import asyncio
import uuid

import pytest

from agents.web import session as web_session
from core.state import WebAgentState
from core.web_context import WebAgentContext
from graphs.web import build_web_graph, route_after_act
from memory.reflections.schema import Reflection, ReflectionJudgment
from memory.workflows.types import Workflow
from tests.unit.web_fakes import PLAN, ShopEnv, answer, buyer


# -- the loop -----------------------------------------------------------------------------------
def test_route_after_act():
    assert route_after_act(WebAgentState(task="t", done_reason="stop")) == "finish"
    assert route_after_act(WebAgentState(task="t")) == "observe"


def _run(models, env, *, evaluate=None, task="Buy the item", store=None, **ctx):
    run_id = uuid.uuid4().hex
    context = WebAgentContext(online_induction="off", models=models, **ctx)
    web_session.attach(context, env, evaluate)
    graph = fast_retries(build_web_graph()).compile(store=store)
    state = {"task": task, "run_id": run_id, "website": "shop"}
    out = asyncio.run(graph.ainvoke(state, context=context, config={"recursion_limit": 200}))
    assert context.browser.session is None  # released at the end
    return out


def test_graph_acts_until_stop_judges_and_records(wired, isolated_home):
    prompts: list[str] = []
    responder = buyer(prompts)

    wired.memory.save_reflection(
        Reflection(
            task="Buy the item",
            reflection="Click Buy once, then stop.",
            judgment=ReflectionJudgment(needs_retry=False, confidence=0.9),
        )
    )
    wired.memory.put_workflows(
        "shop", [Workflow(name="buy_item", description="Buy an item.", steps=["click [7]", "stop"])]
    )
    model = wired(responder)
    out = _run(wired.models, ShopEnv(), store=wired.store)
    assert [s["action"] for s in out["steps"]] == ["click [7]", "stop [done]"]
    assert out["done_reason"] == "stop" and out["answer"] == "done"
    assert out["success"] is True and out["judged_by"] == "llm-judge" and out["reward"] is None
    assert out["tokens"] > 0
    assert "Click Buy once" in prompts[0] and "## buy_item" in prompts[0]
    assert "&lt;run_0&gt;" not in prompts[0]  # nothing recorded yet
    runs = wired.memory.trajectories("shop", successful_only=False)
    assert len(runs) == 1 and runs[0].success and runs[0].id == out["trajectory_id"]
    assert len([c for c in model.calls if c["title"] == "EpisodeJudgment"]) == 1

    # now procedural memory
    second = _run(wired.models, ShopEnv(), store=wired.store, use_workflows=False)
    assert second["success"] is True
    assert "&lt;run_0&gt;" in prompts[2] and "Buy the item" in prompts[2]
    assert "## buy_item" not in prompts[2]


def test_hopeless_model_ends_on_the_invalid_action_limit(wired, isolated_home):
    wired(
        lambda prompt, title, *a: (
            {"reasons": ["no"], "success": False}
            if title == "EpisodeJudgment"
            else answer("type", "", "x")
        )
    )
    out = _run(wired.models, ShopEnv())
    assert len(out["steps"]) == 3 and out["done_reason"].startswith("invalid_actions")
    assert out["success"] is False


def test_garbage_output_falls_back_to_noop_and_the_repeat_limit_ends_it(wired):
    wired(lambda prompt, title, *a: "garbage")
    out = _run(wired.models, ShopEnv(), judge_runs=False)
    assert [s["action"] for s in out["steps"]] == ["noop"] * 3
    assert out["done_reason"].startswith("repeated_action")
    assert out["judged_by"] == "unjudged" and out["success"] is False


def test_evaluator_reward_ends_the_episode_and_decides_success(wired, isolated_home):
    env = ShopEnv()
    model = wired(lambda *a: answer("click", "7"))

    async def evaluate():
        return env.bought, (1.0 if env.bought else None)

    out = _run(wired.models, env, evaluate=evaluate)
    assert out["done_reason"] == "task_done" and out["reward"] == 1.0
    assert out["success"] is True and out["judged_by"] == "evaluator"
    assert all(c["title"] != "EpisodeJudgment" for c in model.calls)


def fast_retries(builder):
    """The builder with MODEL_RETRY's attempts but no back-off sleeps (retry tests take
    milliseconds); the nodes' own check of what will be retried still reads MODEL_RETRY."""
    from dataclasses import replace

    from agents.web.session import MODEL_RETRY

    policy = MODEL_RETRY._replace(initial_interval=0.001, jitter=False)
    for name in ("plan", "decide"):
        builder.nodes[name] = replace(builder.nodes[name], retry_policy=policy)
    return builder


def test_a_transient_model_failure_is_retried_and_the_episode_completes(wired):
    calls = []

    def flaky(prompt, title, *a):
        if title == "EpisodeJudgment":
            return {"reasons": ["bought"], "success": True}
        if title == PLAN:
            return {"steps": ["Click 'Buy'"]}
        calls.append(prompt)
        if len(calls) == 1:
            raise ConnectionError("provider blip")  # LangGraph's default retry_on retries this
        return answer("stop", text="done") if "Thanks" in prompt else answer("click", "7")

    wired(flaky)
    out = _run(wired.models, ShopEnv())  # _run asserts the environment is released at the end
    assert [s["action"] for s in out["steps"]] == ["click [7]", "stop [done]"]
    assert out["done_reason"] == "stop" and out["success"] is True
    assert len(calls) == 3  # the failed call, its retry (click), then stop


def test_a_failing_model_releases_the_environment_after_the_last_attempt(wired):
    attempts = []

    def broken(*a):
        attempts.append(context.browser.session is not None)  # still open while retried
        raise ConnectionError("provider down")

    wired(broken)
    context = WebAgentContext(models=wired.models)
    web_session.attach(context, ShopEnv())
    graph = fast_retries(build_web_graph()).compile()
    with pytest.raises(ConnectionError):
        asyncio.run(graph.ainvoke({"task": "t"}, context=context))
    assert attempts == [True, True, True]  # 3 attempts of the first model call, the plan's
    assert context.browser.session is None  # (bounded re-asks are for bad output only)


def test_an_error_that_is_not_retried_releases_the_environment_at_once(wired):
    calls = []

    def broken(*a):
        calls.append(1)
        raise RuntimeError("bug")  # default retry_on never retries a RuntimeError

    wired(broken)
    context = WebAgentContext(models=wired.models)
    web_session.attach(context, ShopEnv())
    graph = fast_retries(build_web_graph()).compile()
    with pytest.raises(RuntimeError, match="bug"):
        asyncio.run(graph.ainvoke({"task": "t"}, context=context))
    assert len(calls) == 1 and context.browser.session is None


def test_graph_without_start_url_or_environment_says_what_is_missing(wired):
    graph = build_web_graph().compile()
    context = WebAgentContext(models=wired.models)
    with pytest.raises(ValueError, match="start_url"):
        asyncio.run(graph.ainvoke({"task": "t"}, context=context))
    assert context.browser.session is None


def test_a_web_graph_without_a_store_says_memory_is_off(wired):
    from memory.unindexed import MemoryOffWarning

    graph = build_web_graph().compile()
    context = WebAgentContext(models=wired.models)
    with pytest.warns(MemoryOffWarning, match="without a store"), pytest.raises(ValueError):
        asyncio.run(graph.ainvoke({"task": "t"}, context=context))  # no start_url: ends at once


def test_every_node_of_a_run_sees_the_runs_one_context():
    """The run's browser lives in its context, so LangGraph must hand every node of a run the
    same context object, and a context given as a dict (as `langgraph dev` sends it) must be
    built anew, with an empty browser holder, for each run."""
    from langgraph.graph import END, START, StateGraph

    seen: list[tuple[str, object]] = []

    def looker(name):
        def look(state, runtime):
            seen.append((name, runtime.context))
            return {}

        return look

    builder = StateGraph(WebAgentState, context_schema=WebAgentContext)
    builder.add_node("first", looker("first"))
    builder.add_node("second", looker("second"))
    builder.add_edge(START, "first")
    builder.add_edge("first", "second")
    builder.add_edge("second", END)
    graph = builder.compile()
    for _ in range(2):
        asyncio.run(graph.ainvoke({"task": "t"}, context={"max_steps": 3}))
    (_, a1), (_, a2), (_, b1), (_, b2) = seen
    assert isinstance(a1, WebAgentContext) and a1.max_steps == 3
    assert a1 is a2 and b1 is b2  # one context per run, seen by all its nodes
    assert a1.browser is not b1.browser and b1.browser.session is None  # each run its own


def test_a_context_serves_one_run_at_a_time():
    context = WebAgentContext()
    web_session.attach(context, ShopEnv())
    assert web_session.session_of(context, "run-1") is not None
    with pytest.raises(RuntimeError, match="build one per run"):
        web_session.session_of(context, "run-2")
    with pytest.raises(ValueError, match="one context per run"):
        web_session.attach(context, ShopEnv())


def test_graph_shape():
    graph = build_web_graph().compile()
    edges = {(e.source, e.target) for e in graph.get_graph().edges}
    assert edges == {
        ("__start__", "observe"), ("observe", "plan"), ("observe", "decide"),
        ("plan", "decide"), ("decide", "act"), ("act", "observe"), ("act", "finish"),
        ("finish", "__end__"),
    }  # fmt: skip
    from graphs.web import web_graph as compiled

    assert compiled.config["recursion_limit"] >= 3 * 30
