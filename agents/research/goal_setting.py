"""goal_setting: search for the request, then set the goal (passive goal creator), what must be
found (prompt optimizer) and the form of the final answer (response optimizer) in one call.

The first search's results become the run's evidence: every later prompt opens with the request
and them, so the planner knows the names a plan needs (a bridge entity in a multi-hop question)
and a local model reads them once per run (agents/research/prompting.py).
"""

from __future__ import annotations

import logging
import uuid
from typing import Any

from langchain_core.messages import SystemMessage
from langgraph.runtime import Runtime
from langgraph.types import Overwrite
from pydantic import BaseModel, Field

from agents import resources
from agents.research.evidence import EVIDENCE_CHARS, EVIDENCE_HITS, found_something, ground
from agents.research.memory_context import memory_block, solved_before
from agents.research.prompting import human, opening, system_message
from agents.research.reply import request_of
from agents.research.sources import sources_in
from agents.research.topic import grounded, keywords
from core.context import Context
from core.output_limits import OUTPUT_LIMITS
from core.run_budget import CapReached
from core.state import ReflectiveAgentState
from core.structured import ask_structured, told
from memory.packing import context_window
from prompts.research import (
    DEFAULT_FORM,
    GOAL_SCHEMA,
    GOAL_SETTER,
    GOAL_WITH_CRITERIA,
    SHORT_FORM,
    AnswerForm,
)

log = logging.getLogger(__name__)


class GoalSetting(BaseModel):
    """The three roles' answers. The fields a run cannot do without come first: the form, which
    decides whether the run follows a chain or plans; output cut at its budget is closed and
    validated, so a goal the 1.5B runs on with (it copied a whole passage into it, 192 tokens
    and 40 s on the README question) loses its end, not the run. A short answer is not asked
    for here: a small model named a step's bridge entity (the creator, not his film) as often
    as the answer, so the chain's hops find it (agents/research/hop.py)."""

    model_config = told(GOAL_SCHEMA)
    answer_form: AnswerForm = Field(description=GOAL_SCHEMA["answer_form"])
    goal: str = Field(description=GOAL_SCHEMA["goal"])
    criteria: list[str] = Field(
        default_factory=list, description=GOAL_SCHEMA["criteria"], max_length=3
    )

    def goal_text(self) -> str:
        # a criterion says something in words ("#1" or "-3.5" is a small model's filler)
        checks = "\n".join(f"- {c}" for c in self.criteria if len(keywords(c)) >= 2)
        return GOAL_WITH_CRITERIA.format(goal=self.goal, checks=checks) if checks else self.goal


def goal_setting(state: ReflectiveAgentState, runtime: Runtime[Context]) -> dict:
    """Start a run: a fresh run id, empty per-task lists, the run's evidence and its goal."""
    ctx = runtime.context
    resources.check_memory(runtime)
    query = request_of(state)  # `query`, or a chat's last message
    run_id = uuid.uuid4().hex[:12]
    info = runtime.execution_info
    if info is None or info.node_attempt == 1:  # a retried attempt is the same run
        ctx.budget.begin(run_id)  # a context reused by a new run counts from zero
    model = ctx.chat("planner")
    with resources.open_tools(ctx) as tools:
        budget = min(EVIDENCE_CHARS, context_window(model, ctx.spec("planner")))
        evidence = ground(query, tools, k=EVIDENCE_HITS, max_chars=budget)
    # a short answer with evidence to start from is followed along its chain (answer first);
    # a plan to approve is a plan to make: a person asked to see it before the run spends
    first = ctx.answer_first and not ctx.approve_plan and found_something(evidence)
    out, stopped, recalled = _set_goal(runtime, query, evidence, chain=first)
    goal = _usable(out.goal_text() if out else "", fallback=query, topic=query)
    form = out.answer_form if out else DEFAULT_FORM
    chain = first and form == SHORT_FORM
    return {
        "query": query,
        "run_id": run_id,
        "stopped": stopped,  # None: a new run on a thread whose last run stopped
        "evidence": evidence,
        "evidence_sources": sources_in(evidence),
        "optimized_goal": goal,
        "answer_form": form,
        # None empties the per-task lists: a new run on a thread that already ran one
        "results": None,
        "task_reports": None,
        "task_steps": None,
        "reflection_ids": None,
        "recalled": Overwrite(recalled),  # this run's, not the last run's on the thread
        "sources": None,
        "read": None,
        "current_tasks": [],
        "tasks": [],
        "answer": "",
        "final_output": "",
        "answer_check": None,
        "citations": [],
        "research": "chain" if chain else "plan",
        "chain": [],
    }


def _set_goal(
    runtime: Runtime[Context], query: str, evidence: str, *, chain: bool
) -> tuple[GoalSetting | None, str | None, list[str]]:
    """The goal (None: a cap refused the call, which it names), and the memories that reached
    its prompt. This request's own lessons only: other requests' advice drew a small model's
    first answer off the evidence (docs/evaluations/hotpotqa.md, ExpeL's protocol); it reaches
    the planner instead. A kind answered right along a `chain` before: its goal is known (a
    short answer), and no call sets it."""
    ctx, mem = runtime.context, resources.memory(runtime)
    kind = solved_before(mem, ctx, query).ids if chain else []
    if kind:
        return GoalSetting(answer_form=SHORT_FORM, goal=query), None, kind
    memory = memory_block(mem, ctx, query, "planner", workflows_k=0, own_lessons=True)
    prompt = GOAL_SETTER.format(opening=opening(query, evidence), memory=memory.text)
    out, stopped = _ask_goal(ctx.chat("planner"), system_message(ctx), prompt)
    return out, stopped, memory.ids


def _ask_goal(
    model: Any, system: SystemMessage, prompt: str
) -> tuple[GoalSetting | None, str | None]:
    """The goal setter's answer, and the cap that refused the call (then no answer: the
    request stands as its goal and the run ends partial)."""
    try:
        messages = [system, human(prompt)]
        return ask_structured(model, GoalSetting, messages, max_tokens=OUTPUT_LIMITS["goal"]), None
    except CapReached as refused:
        return None, refused.cap


def _usable(text: str, *, fallback: str, topic: str = "") -> str:
    """A model's text if it says something (on `topic`, when given), else the fallback: tiny
    models return blanks, or a schema's field name ("{ description }") for the goal."""
    text = text.strip()
    says_something = len(text.split()) >= 2 and grounded(text, topic)
    return text if says_something else fallback
