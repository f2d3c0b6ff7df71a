"""The web agent without a browser: decision, validation, fallback, prompt, memory, the loop.

The graph runs on a scripted model and a scripted environment attached through
agents.web.session (same interface as BrowserEnv: observe, step, trajectory).
"""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass

import pytest

from agents import resources
from agents.web import session as web_session
from agents.web.decide import (
    FALLBACK_ACTION,
    action_schema,
    build_messages,
    compose_action,
    decide_action,
    page_ids,
)
from agents.web.memory import format_past_trajectories, record_episode, similar_trajectories
from browser.actions import ActionParseError, ActionType, parse_action
from browser.config import StepInfo
from browser.limits import Limits, limit_reason
from browser.trajectory import TrajectoryStep
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

PAGE = (
    "Tab 0 (current): Shop\nURL: http://127.0.0.1/\n"
    "[1] RootWebArea 'Shop'\n\t[7] button 'Buy'\n\t[9] textbox 'Name'"
)


def answer(kind: str, element: str = "", text: str = "") -> dict[str, str]:
    return {"action_type": kind, "element_id": element, "text": text}


# -- composing and validating -------------------------------------------------------------------
@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        (answer("click", "7"), "click [7]"),
        (answer("type", "9", "Ada"), "type [9] [Ada]"),
        (answer("press", text="Enter"), "press [Enter]"),
        (answer("scroll"), "scroll [down]"),
        (answer("stop", text="42"), "stop [42]"),
        (answer("go_back", "7", "x"), "go_back"),
        (answer("goto", text="http://127.0.0.1/a"), "goto [http://127.0.0.1/a]"),
    ],
)
def test_compose_gives_actions_the_parser_accepts(reply, expected):
    action = compose_action(reply)
    assert action == expected
    parse_action(action)


def test_compose_keeps_bad_answers_bad_so_the_env_rejects_them():
    with pytest.raises(ActionParseError):
        parse_action(compose_action(answer("click", "")))
    with pytest.raises(ActionParseError):
        parse_action(compose_action(answer("jump", "7")))


def test_schema_limits_element_ids_to_the_page():
    ids = page_ids(PAGE)
    assert ids == ["7", "9"]  # not the root: acting on the document does nothing
    schema = action_schema(ids)
    assert schema["properties"]["element_id"]["enum"] == ["", "7", "9"]
    assert set(schema["properties"]["action_type"]["enum"]) == {t.value for t in ActionType}


def _model(replies):
    replies = list(replies)
    return ScriptedChatModel(responder=lambda *a: replies.pop(0), calls=[])


def test_decide_returns_a_valid_action_and_counts_tokens():
    decision = asyncio.run(decide_action(_model([answer("click", "7")]), "Buy it", PAGE, [], {}))
    assert (decision.action, decision.valid, decision.reason) == ("click [7]", True, None)
    assert decision.tokens > 0


def test_decide_invalid_composition_is_flagged_with_the_reason():
    decision = asyncio.run(decide_action(_model([answer("type", "", "Ada")]), "t", PAGE, [], {}))
    assert not decision.valid and "id" in decision.reason


def test_decide_falls_back_to_noop_after_bounded_malformed_answers():
    model = _model(["not json", "still not json", answer("click", "7")])
    decision = asyncio.run(decide_action(model, "t", PAGE, [], {}, attempts=2))
    assert decision.action == FALLBACK_ACTION and decision.valid
    assert len(model.calls) == 2  # bounded: the third reply is never asked for


def test_prompt_carries_memory_history_feedback_and_page():
    step = TrajectoryStep(1, "obs", "u", "click [3]", None, False, reason="no element [3]")
    system, human = build_messages(
        "Buy the book",
        PAGE,
        [step],
        {"reflections": "<ref_0>R</ref_0>", "workflows": "## buy\nW", "trajectories": "<run_0>P"},
        feedback="no element [3]",
    )
    assert "click [id]" in system.text and "stop [answer]" in system.text
    body = human.text
    for tag in ("task", "past_reflections", "workflows", "past_trajectories", "page", "feedback"):
        assert f"<{tag}>" in body and f"</{tag}>" in body
    assert "<ref_0>R</ref_0>" in body and "## buy" in body and "<run_0>P" in body
    assert "[invalid: no element [3]]" in body and "[7] button 'Buy'" in body
    assert body.index("<task>") < body.index("<page>")


def test_prompt_without_memory_shows_placeholders():
    _, human = build_messages("t", PAGE, [], {})
    assert "<workflows>\n(none)\n</workflows>" in human.text
    assert "first action" in human.text


# -- procedural memory --------------------------------------------------------------------------
def _steps(*actions: str) -> list[dict]:
    return [
        TrajectoryStep(i, "obs", "u", a, a, True, target="button 'X'").to_dict()
        for i, a in enumerate(actions, 1)
    ]


def test_similar_trajectories_nearest_first_with_outcomes(isolated_home):
    record_episode(isolated_home, "book a flight to Paris", _steps("click [1]"),
                   website="air", success=True, judged_by="evaluator")  # fmt: skip
    record_episode(isolated_home, "cancel my hotel room", _steps("click [2]"),
                   website="air", success=False, judged_by="evaluator")  # fmt: skip
    record_episode(isolated_home, "book a flight to Rome", _steps("click [3]"),
                   website="other", success=True, judged_by="evaluator")  # fmt: skip
    for emb in (None, HashEmbeddings()):
        runs = similar_trajectories(
            "book a flight to Oslo", home=isolated_home, k=2, website="air", embeddings=emb
        )
        assert [r.task for r in runs] == ["book a flight to Paris", "cancel my hotel room"]
    text = format_past_trajectories(runs)
    assert "<outcome>success</outcome>" in text and "<outcome>failure</outcome>" in text
    assert "click [1]  # button 'X'" in text
    assert similar_trajectories("x", home=isolated_home, k=0) == []


# -- the loop -----------------------------------------------------------------------------------
def test_route_after_act():
    assert route_after_act(WebAgentState(task="t", done_reason="stop")) == "finish"
    assert route_after_act(WebAgentState(task="t")) == "observe"


@dataclass
class _Obs:
    text: str
    url: str = "http://127.0.0.1/"


class ScriptedEnv:
    """BrowserEnv's interface on a fixed page: 'click [7]' buys; limits as in the real env."""

    def __init__(self, limits: Limits | None = None) -> None:
        self.trajectory: list[TrajectoryStep] = []
        self.limits = limits or Limits()
        self.bought = False
        self.done_reason: str | None = None

    async def observe(self) -> _Obs:
        return _Obs(PAGE + ("\n\t[11] StaticText 'Thanks'" if self.bought else ""))

    async def step(self, text: str):
        try:
            action, reason = parse_action(text), None
        except ActionParseError as err:
            action, reason = None, err.reason
        self.bought |= action is not None and action.canonical == "click [7]"
        self.trajectory.append(
            TrajectoryStep(len(self.trajectory) + 1, PAGE, "http://127.0.0.1/", text,
                           action.canonical if action else None, reason is None, reason)
        )  # fmt: skip
        answer_text = None
        if action is not None and action.type is ActionType.STOP:
            self.done_reason, answer_text = "stop", action.text
        else:
            self.done_reason = limit_reason(self.trajectory, self.limits)
        info = StepInfo(
            text, action.canonical if action else None, reason is None, reason,
            "http://127.0.0.1/", done_reason=self.done_reason, answer=answer_text,
        )  # fmt: skip
        return await self.observe(), info, self.done_reason is not None


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
    out = _run(ScriptedEnv())
    assert [s["action"] for s in out["steps"]] == ["click [7]", "stop [done]"]
    assert out["done_reason"] == "stop" and out["answer"] == "done"
    assert out["success"] is True and out["judged_by"] == "llm-judge" and out["reward"] is None
    assert out["tokens"] > 0
    assert "Click Buy once" in prompts[0] and "## buy_item" in prompts[0]
    assert "<run_0>" not in prompts[0]  # nothing recorded yet
    runs = TrajectoryLog(isolated_home).load("shop", successful_only=False)
    assert len(runs) == 1 and runs[0].success and runs[0].id == out["trajectory_id"]
    assert len([c for c in model.calls if c["title"] == "EpisodeJudgment"]) == 1

    second = _run(ScriptedEnv(), use_workflows=False)  # the first run is now procedural memory
    assert second["success"] is True
    assert "<run_0>" in prompts[2] and "Buy the item" in prompts[2]
    assert "## buy_item" not in prompts[2]


def test_hopeless_model_ends_on_the_invalid_action_limit(wired, isolated_home):
    wired(lambda prompt, title, *a: {"reasons": ["no"], "success": False}
          if title == "EpisodeJudgment" else answer("type", "", "x"))  # fmt: skip
    out = _run(ScriptedEnv())
    assert len(out["steps"]) == 3 and out["done_reason"].startswith("invalid_actions")
    assert out["success"] is False


def test_garbage_output_falls_back_to_noop_and_the_repeat_limit_ends_it(wired):
    wired(lambda prompt, title, *a: "garbage")
    out = _run(ScriptedEnv(), judge_runs=False)
    assert [s["action"] for s in out["steps"]] == ["noop"] * 3
    assert out["done_reason"].startswith("repeated_action")
    assert out["judged_by"] == "unjudged" and out["success"] is False


def test_evaluator_reward_ends_the_episode_and_decides_success(wired, isolated_home):
    env = ScriptedEnv()
    model = wired(lambda *a: answer("click", "7"))

    async def evaluate():
        return env.bought, (1.0 if env.bought else None)

    out = _run(env, evaluate=evaluate)
    assert out["done_reason"] == "task_done" and out["reward"] == 1.0
    assert out["success"] is True and out["judged_by"] == "evaluator"
    assert all(c["title"] != "EpisodeJudgment" for c in model.calls)


def test_a_failing_model_releases_the_environment(wired):
    def broken(*a):
        raise ConnectionError("provider down")

    wired(broken)
    run_id = uuid.uuid4().hex
    web_session.attach(run_id, ScriptedEnv())
    graph = build_web_agent_graph().compile()
    with pytest.raises(ConnectionError):
        asyncio.run(graph.ainvoke({"task": "t", "run_id": run_id}, context=WebAgentContext()))
    assert run_id not in web_session.open_runs()


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
