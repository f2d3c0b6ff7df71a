"""Every research node sends its role's output budget (core.output_limits) with its model call."""

from __future__ import annotations

import threading
from typing import Any

from core.output_limits import OUTPUT_LIMITS
from graphs import build_reflective_graph
from tests.unit.fakes import ScriptedChatModel
from tests.unit.research_script import Script, run, wire

__all__ = ["wire"]

LOCK = threading.Lock()
ROLE_OF_SCHEMA = {
    "GoalSetting": "goal",
    "DecomposedTasks": "decompose",
    "ReflectionOutput": "reflect",
    "FinalAnswer": "aggregate",
}


class BudgetedModel(ScriptedChatModel):
    """A scripted model with an output-limit field, so with_max_tokens can set it; each call
    records the limit it was made with."""

    max_tokens: int | None = None

    def _generate(self, messages: Any, stop: Any = None, run_manager: Any = None, **kw: Any):
        with LOCK:  # parallel tasks call from several threads: calls[-1] must be this call
            result = super()._generate(messages, stop, run_manager, **kw)
            self.calls[-1]["max_tokens"] = self.max_tokens
        return result


def role_of(call: dict[str, Any]) -> str:
    if call["title"]:
        return ROLE_OF_SCHEMA[call["title"]]
    if call["tools"]:
        return "executor"
    assert "Answer the task using only" in call["prompt"], call["prompt"][-300:]
    return "grounded_answer"


def budgets_sent(wire, monkeypatch, script: Script) -> dict[str, set[int | None]]:
    model = BudgetedModel(responder=script, calls=[])
    wire.model = model
    run(build_reflective_graph(), wire.context(max_retries=0), store=wire.store)
    sent: dict[str, set[int | None]] = {}
    for call in model.calls:
        sent.setdefault(role_of(call), set()).add(call["max_tokens"])
    assert model.max_tokens is None  # the shared model itself is never changed
    return sent


def test_every_node_sends_its_roles_budget(wire, monkeypatch):
    sent = budgets_sent(wire, monkeypatch, Script())
    roles = ("goal", "decompose", "executor", "reflect")
    assert {role: sent[role] for role in (*roles, "aggregate")} == {
        role: {OUTPUT_LIMITS[role]} for role in (*roles, "aggregate")
    }


class Echoing(Script):
    """An executor that "answers" by restating a tool call: the answer comes from evidence."""

    def executor(self, prompt, messages):
        return "Calling corpus_search({'query': 'Ada'})"


def test_grounded_answer_sends_its_budget(wire, monkeypatch):
    sent = budgets_sent(wire, monkeypatch, Echoing())
    assert sent["grounded_answer"] == {OUTPUT_LIMITS["grounded_answer"]}
    assert sent["executor"] == {OUTPUT_LIMITS["executor"]}


def test_budgets_leave_room_for_what_each_call_must_say():
    # tool choices and verdicts in tens of tokens; answers bounded but not starved
    assert OUTPUT_LIMITS["goal"] <= 192 and OUTPUT_LIMITS["executor"] <= 160  # goal: + an answer
    assert OUTPUT_LIMITS["reflect"] <= 192  # the verdict's JSON with a lesson and a strategy
    assert OUTPUT_LIMITS["short_answer"] <= 32
    # a reflection (verdict, confidence, 1-2 sentences, a strategy, short reasons) and 5
    # planned tasks fit
    assert OUTPUT_LIMITS["reflect"] >= 160 and OUTPUT_LIMITS["decompose"] >= 160
    assert OUTPUT_LIMITS["aggregate"] > OUTPUT_LIMITS["grounded_answer"]
