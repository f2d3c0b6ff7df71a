"""Scripted browser environments for unit tests: BrowserEnv's interface on fixed pages, and
the scripted models the web agent's graph runs on.

Same surface as browser.env.BrowserEnv (observe, step with `call=`, reject, last_observation,
trajectory, done/done_reason/answer, limits), so the web agent's nodes and workflow macros run
on them without chromium.
"""

from __future__ import annotations

import ast
import re

import pytest

from browser.actions import Action, ActionParseError, ActionType, parse_action
from browser.config import StepInfo
from browser.limits import Limits, limit_reason
from browser.observation import Node, Observation, TabInfo
from browser.trajectory import TrajectoryStep
from core.models import Models
from memory.agent_memory import AgentMemory
from memory.stores.sqlite_store import SqliteStore
from tests.unit.fakes import HashEmbeddings, ScriptedChatModel

URL = "http://127.0.0.1/"
PLAN = "WebPlan"  # the title of the plan node's schema: a scripted model's cue to answer steps
_LINE = re.compile(r"^\s*\[(\d+)\] (\S+) ('(?:[^'\\]|\\.)*')(.*)$")


def observation(tree: str) -> Observation:
    """An Observation whose nodes are the tree's `[id] role 'name'` lines."""
    nodes = {}
    for line in tree.splitlines():
        found = _LINE.match(line)
        if found:
            node_id, role, name, rest = found.groups()
            text = ast.literal_eval(name)
            nodes[node_id] = Node(node_id, role, text, None, f"{role} {text!r}{rest}")
    return Observation(URL, [TabInfo(0, "Page", URL, True)], tree, nodes)


class ScriptedEnv:
    """A page given by `tree()`; `apply(action)` changes it (or returns why it cannot)."""

    def __init__(self, limits: Limits | None = None) -> None:
        self.trajectory: list[TrajectoryStep] = []
        self.limits = limits or Limits()
        self.done_reason: str | None = None
        self.answer: str | None = None
        self._last: Observation | None = None

    def tree(self) -> str:
        raise NotImplementedError

    def apply(self, action: Action) -> str | None:
        return None

    @property
    def done(self) -> bool:
        return self.done_reason is not None

    @property
    def last_observation(self) -> Observation | None:
        return self._last

    async def observe(self) -> Observation:
        self._last = observation(self.tree())
        return self._last

    async def step(self, text: str, *, call: str | None = None):
        before = self._last or await self.observe()
        action: Action | None = None
        try:
            action, reason = parse_action(text), None
        except ActionParseError as err:
            reason = err.reason
        target = None
        if action is not None and action.element_id is not None:
            node = before.nodes.get(action.element_id)
            reason = reason or (None if node else f"no element [{action.element_id}]")
            target = node.line if node else None
        if action is not None and reason is None:
            reason = self.apply(action)
        step = TrajectoryStep(
            len(self.trajectory) + 1,
            before.text,
            URL,
            text,
            action.canonical if action else None,
            reason is None,
            reason,
            target=target,
            call=call,
        )
        stop = action if action is not None and action.type is ActionType.STOP else None
        info = self._record(step, stop if reason is None else None)
        return await self.observe(), info, self.done

    def reject(self, raw: str, reason: str, *, call: str | None = None) -> StepInfo:
        assert self._last is not None
        step = TrajectoryStep(
            len(self.trajectory) + 1, self._last.text, URL, raw, None, False, reason, call=call
        )
        return self._record(step, None)

    def _record(self, step: TrajectoryStep, stop: Action | None) -> StepInfo:
        self.trajectory.append(step)
        if stop is not None:
            self.done_reason, self.answer = "stop", stop.text or ""
        else:
            self.done_reason = limit_reason(self.trajectory, self.limits)
        return StepInfo(
            step.raw,
            step.action,
            step.valid,
            step.reason,
            URL,
            target=step.target,
            done_reason=self.done_reason,
            answer=self.answer,
        )


SHOP = "[1] RootWebArea 'Shop'\n\t[7] button 'Buy'\n\t[9] textbox 'Name'"


class ShopEnv(ScriptedEnv):
    """'click [7]' buys; the page then says Thanks."""

    bought = False

    def tree(self) -> str:
        return SHOP + ("\n\t[11] StaticText 'Thanks'" if self.bought else "")

    def apply(self, action: Action) -> str | None:
        self.bought |= action.canonical == "click [7]"
        return None


class LoginEnv(ScriptedEnv):
    """A MiniWoB-like login form: two unnamed textboxes and a Login button."""

    def __init__(self, user: str = "karrie", password: str = "AU", **kw: object) -> None:
        super().__init__(**kw)  # type: ignore[arg-type]
        self.wanted = (user, password)
        self.typed: dict[str, str] = {}
        self.logged_in: bool | None = None  # None until Login is clicked

    def tree(self) -> str:
        return (
            "[2] RootWebArea 'Login User Task'\n\t[41] StaticText 'Username'\n"
            "\t[3] textbox ''\n\t[42] StaticText 'Password'\n\t[4] textbox ''\n"
            "\t[25] button 'Login'"
        )

    def apply(self, action: Action) -> str | None:
        if action.type is ActionType.TYPE:
            if action.element_id not in ("3", "4"):
                return f"[{action.element_id}] is not a text field"
            self.typed[action.element_id] = action.text or ""
        elif action.canonical == "click [25]":
            self.logged_in = (self.typed.get("3"), self.typed.get("4")) == self.wanted
        return None


def answer(kind: str, element: str = "", text: str = "") -> dict[str, str]:
    """A decision the scripted model replies with: an action on an element, or with text."""
    return {"action_type": kind, "element_id": element, "text": text}


def buyer(decided: list[str] | None = None):
    """A scripted model that buys on ShopEnv: plans two steps, clicks Buy, stops on the thanks
    page, and judges the run a success; each decision's prompt is appended to `decided`."""

    def respond(prompt, title, tools, messages):
        if title == "EpisodeJudgment":
            return {"reasons": ["bought"], "success": True}
        if title == PLAN:
            return {"steps": ["Click 'Buy'", "Stop"]}
        if decided is not None:
            decided.append(prompt)
        return answer("stop", text="done") if "Thanks" in prompt else answer("click", "7")

    return respond


class ScriptedModels(Models):
    """Every role's model is the test's current script (`use(responder)`); hashing embeddings."""

    def __init__(self) -> None:
        super().__init__(embeddings=lambda spec: HashEmbeddings())
        self.model: ScriptedChatModel | None = None

    def chat(self, spec: str) -> ScriptedChatModel:
        assert self.model is not None, "no scripted model yet"
        return self.model


@pytest.fixture
def wired(isolated_home):
    """Scripted models (`wired(responder)`; contexts get them from `wired.models`), and the
    project's store under the test's home (`wired.store`)."""
    models = ScriptedModels()

    def use(responder) -> ScriptedChatModel:
        models.model = ScriptedChatModel(responder=responder, calls=[])
        return models.model

    use.models = models
    use.store = SqliteStore.open(isolated_home, HashEmbeddings())
    use.memory = AgentMemory(use.store)
    yield use
    use.store.close()


def recorded_steps(*actions: str) -> list[dict]:
    """A recorded run's steps (as dicts), one per action, each valid."""
    return [
        TrajectoryStep(i, "obs", "u", a, a, True, target="button 'X'").to_dict()
        for i, a in enumerate(actions, 1)
    ]
