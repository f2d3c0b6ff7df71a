"""The web agent graph on scripted pages: the loop, limits, evaluator, judge, retries, release.

The graph runs on a scripted model and a scripted environment attached through
agents.web.session (tests/unit/web_fakes.py: BrowserEnv's interface without chromium).
"""

from __future__ import annotations

import asyncio
import uuid

import pytest

from agents import resources
from agents.web import session as web_session
from core import models
from core.state import WebAgentState
from core.web_context import WebAgentContext
from graphs.routing import route_after_act
from graphs.web_agent import build_web_agent_graph
from memory.reflections import ReflectionManager
from memory.schema import Reflection, ReflectionJudgment
from memory.trajectories import TrajectoryLog
from memory.workflow_types import Workflow
from memory.workflows import WorkflowStore
from tests.unit.fakes import HashEmbeddings, ScriptedChatModel
from tests.unit.web_fakes import ShopEnv


def answer(kind: str, element: str = "", text: str = "") -> dict[str, str]:
    return {"action_type": kind, "element_id": element, "text": text}


# -- the loop -----------------------------------------------------------------------------------
def test_route_after_act():
    assert route_after_act(WebAgentState(task="t", done_reason="stop")) == "finish"
    assert route_after_act(WebAgentState(task="t")) == "observe"


@pytest.fixture
def wired(monkeypatch, isolated_home):
    manager = ReflectionManager(HashEmbeddings())
    monkeypatch.setattr(resources, "reflection_manager", lambda ctx: manager)
    monkeypatch.setattr(models, "get_embeddings", lambda spec="local": HashEmbeddings())

    def use(responder) -> ScriptedChatModel:
        model = ScriptedChatModel(responder=responder, calls=[])
        monkeypatch.setattr(models, "get_chat_model", lambda spec: model)
        return model

    use.manager = manager
    return use


def _run(env, *, evaluate=None, task="Buy the item", **ctx):
    run_id = uuid.uuid4().hex
    web_session.attach(run_id, env, evaluate)
    context = WebAgentContext(online_induction="off", **ctx)
    graph = build_web_agent_graph().compile()
    state = {"task": task, "run_id": run_id, "website": "shop"}
    out = asyncio.run(graph.ainvoke(state, context=context, config={"recursion_limit": 200}))
    assert run_id not in web_session.open_runs()  # released at the end
    return out


def test_graph_acts_until_stop_judges_and_records(wired, isolated_home):
    prompts = []

    def responder(prompt, title, tools, messages):
        if title == "EpisodeJudgment":
            return {"reasons": ["bought"], "success": True}
        prompts.append(prompt)
        return answer("stop", text="done") if "Thanks" in prompt else answer("click", "7")

    wired.manager.save_reflection(Reflection(
        task="Buy the item", reflection="Click Buy once, then stop.",
        judgment=ReflectionJudgment(needs_retry=False, confidence=0.9),
    ))  # fmt: skip
    WorkflowStore(isolated_home).save(
        "shop", [Workflow(name="buy_item", description="Buy an item.", steps=["click [7]", "stop"])]
    )
    model = wired(responder)
    out = _run(ShopEnv())
    assert [s["action"] for s in out["steps"]] == ["click [7]", "stop [done]"]
    assert out["done_reason"] == "stop" and out["answer"] == "done"
    assert out["success"] is True and out["judged_by"] == "llm-judge" and out["reward"] is None
    assert out["tokens"] > 0
    assert "Click Buy once" in prompts[0] and "## buy_item" in prompts[0]
    assert "&lt;run_0&gt;" not in prompts[0]  # nothing recorded yet
    runs = TrajectoryLog(isolated_home).load("shop", successful_only=False)
    assert len(runs) == 1 and runs[0].success and runs[0].id == out["trajectory_id"]
    assert len([c for c in model.calls if c["title"] == "EpisodeJudgment"]) == 1

    second = _run(ShopEnv(), use_workflows=False)  # the first run is now procedural memory
    assert second["success"] is True
    assert "&lt;run_0&gt;" in prompts[2] and "Buy the item" in prompts[2]
    assert "## buy_item" not in prompts[2]


def test_hopeless_model_ends_on_the_invalid_action_limit(wired, isolated_home):
    wired(lambda prompt, title, *a: {"reasons": ["no"], "success": False}
          if title == "EpisodeJudgment" else answer("type", "", "x"))  # fmt: skip
    out = _run(ShopEnv())
    assert len(out["steps"]) == 3 and out["done_reason"].startswith("invalid_actions")
    assert out["success"] is False


def test_garbage_output_falls_back_to_noop_and_the_repeat_limit_ends_it(wired):
    wired(lambda prompt, title, *a: "garbage")
    out = _run(ShopEnv(), judge_runs=False)
    assert [s["action"] for s in out["steps"]] == ["noop"] * 3
    assert out["done_reason"].startswith("repeated_action")
    assert out["judged_by"] == "unjudged" and out["success"] is False


def test_evaluator_reward_ends_the_episode_and_decides_success(wired, isolated_home):
    env = ShopEnv()
    model = wired(lambda *a: answer("click", "7"))

    async def evaluate():
        return env.bought, (1.0 if env.bought else None)

    out = _run(env, evaluate=evaluate)
    assert out["done_reason"] == "task_done" and out["reward"] == 1.0
    assert out["success"] is True and out["judged_by"] == "evaluator"
    assert all(c["title"] != "EpisodeJudgment" for c in model.calls)


@pytest.fixture
def fast_retries(monkeypatch):
    """DECIDE_RETRY without the back-off sleeps, so retry tests take milliseconds."""
    from langgraph.types import RetryPolicy

    import agents.web.nodes as nodes
    import graphs.web_agent as web_graph

    policy = RetryPolicy(max_attempts=3, initial_interval=0.001, jitter=False)
    monkeypatch.setattr(nodes, "DECIDE_RETRY", policy)
    monkeypatch.setattr(web_graph, "DECIDE_RETRY", policy)


def test_a_transient_model_failure_is_retried_and_the_episode_completes(wired, fast_retries):
    calls = []

    def flaky(prompt, title, *a):
        if title == "EpisodeJudgment":
            return {"reasons": ["bought"], "success": True}
        calls.append(prompt)
        if len(calls) == 1:
            raise ConnectionError("provider blip")  # LangGraph's default retry_on retries this
        return answer("stop", text="done") if "Thanks" in prompt else answer("click", "7")

    wired(flaky)
    out = _run(ShopEnv())  # _run asserts the environment is released at the end
    assert [s["action"] for s in out["steps"]] == ["click [7]", "stop [done]"]
    assert out["done_reason"] == "stop" and out["success"] is True
    assert len(calls) == 3  # the failed call, its retry (click), then stop


def test_a_failing_model_releases_the_environment_after_the_last_attempt(wired, fast_retries):
    attempts = []

    def broken(*a):
        attempts.append(web_session.get(run_id) is not None)  # still open while retried
        raise ConnectionError("provider down")

    wired(broken)
    run_id = uuid.uuid4().hex
    web_session.attach(run_id, ShopEnv())
    graph = build_web_agent_graph().compile()
    with pytest.raises(ConnectionError):
        asyncio.run(graph.ainvoke({"task": "t", "run_id": run_id}, context=WebAgentContext()))
    assert attempts == [True, True, True]  # 3 attempts (2 per decision: bounded re-asks are
    assert run_id not in web_session.open_runs()  # for bad output, not for raised errors)


def test_an_error_that_is_not_retried_releases_the_environment_at_once(wired, fast_retries):
    calls = []

    def broken(*a):
        calls.append(1)
        raise RuntimeError("bug")  # default retry_on never retries a RuntimeError

    wired(broken)
    run_id = uuid.uuid4().hex
    web_session.attach(run_id, ShopEnv())
    graph = build_web_agent_graph().compile()
    with pytest.raises(RuntimeError, match="bug"):
        asyncio.run(graph.ainvoke({"task": "t", "run_id": run_id}, context=WebAgentContext()))
    assert len(calls) == 1 and run_id not in web_session.open_runs()


def test_graph_without_start_url_or_environment_says_what_is_missing(wired):
    graph = build_web_agent_graph().compile()
    with pytest.raises(ValueError, match="start_url"):
        asyncio.run(graph.ainvoke({"task": "t"}, context=WebAgentContext()))
    assert web_session.open_runs() == []


def test_graph_shape():
    graph = build_web_agent_graph().compile()
    edges = {(e.source, e.target) for e in graph.get_graph().edges}
    assert edges == {
        ("__start__", "observe"), ("observe", "decide"), ("decide", "act"),
        ("act", "observe"), ("act", "finish"), ("finish", "__end__"),
    }  # fmt: skip
    from graphs.web_agent import graph as compiled

    assert compiled.config["recursion_limit"] >= 3 * 30
