"""goal_setting: request → goal (passive goal creator) → SMART goal; shape_response: the shape
of the final answer (response optimizer), written while the tasks are being planned."""

from __future__ import annotations

import logging

from langgraph.runtime import Runtime
from pydantic import BaseModel, Field

from agents import resources
from agents.research.memory_context import memory_block
from agents.research.tasks import new_run_id
from agents.research.topic import grounded, keywords
from core.context import Context
from core.output_budget import ROLE_BUDGETS, with_max_tokens
from core.state import ReflectiveAgentState
from core.structured import ask_structured
from prompts.goal import GOAL_CREATOR, PROMPT_OPTIMIZER, RESPONSE_OPTIMIZER
from prompts.untrusted import data

log = logging.getLogger(__name__)
DEFAULT_SHAPE = "A direct answer first, then the supporting facts with their sources."


class Goal(BaseModel):
    description: str = Field(description="The goal in one sentence.")


class OptimizedGoal(BaseModel):
    description: str = Field(description="The SMART goal.")
    metrics: list[str] = Field(description="1-3 measurable success criteria.", max_length=3)

    def text(self) -> str:
        # a criterion says something in words ("#1" or "-3.5" is a small model's filler)
        criteria = "\n".join(f"- {m}" for m in self.metrics if len(keywords(m)) >= 2)
        return (
            f"{self.description}\nSuccess criteria:\n{criteria}" if criteria else self.description
        )


def goal_setting(state: ReflectiveAgentState, runtime: Runtime[Context]) -> dict:
    """Start a run: a fresh run id, empty per-task lists, and the SMART goal."""
    ctx = runtime.context
    if runtime.store is None:
        log.info("no store: memory is off for this run (compile the graph with store=…)")
    model = ctx.models.chat(ctx.planner_model)
    query = state["query"]
    memory = memory_block(resources.memory(runtime), ctx, query, ctx.planner_model)
    goal = ask_structured(
        model,
        Goal,
        GOAL_CREATOR.format(memory=memory, query=data(query)),
        max_tokens=ROLE_BUDGETS["goal"],
    )
    goal_text = _usable(goal.description if goal else "", fallback=query, topic=query)
    smart = ask_structured(
        model,
        OptimizedGoal,
        PROMPT_OPTIMIZER.format(memory=memory, goal=data(goal_text)),
        max_tokens=ROLE_BUDGETS["smart_goal"],
    )
    return {
        "run_id": new_run_id(),
        "optimized_goal": _usable(smart.text() if smart else "", fallback=goal_text, topic=query),
        # None empties the per-task lists: a new run on a thread that already ran one
        "results": None,
        "task_reports": None,
        "reflection_ids": None,
        "current_tasks": [],
        "final_output": "",
    }


def shape_response(state: ReflectiveAgentState, runtime: Runtime[Context]) -> dict:
    """The answer's sections, length and tone (runs beside decompose_query)."""
    ctx = runtime.context
    goal = state.get("optimized_goal") or state["query"]
    memory = memory_block(resources.memory(runtime), ctx, goal, ctx.planner_model)
    model = ctx.models.chat(ctx.planner_model)
    shape = with_max_tokens(model, ROLE_BUDGETS["response_shape"]).invoke(
        RESPONSE_OPTIMIZER.format(memory=memory, goal=data(goal))
    )
    return {"optimized_response": _usable(shape.text, fallback=DEFAULT_SHAPE)}


def _usable(text: str, *, fallback: str, topic: str = "") -> str:
    """A model's text if it says something (on `topic`, when given), else the fallback: tiny
    models return blanks, or a schema's field name ("{ description }") for the goal."""
    text = text.strip()
    says_something = len(text.split()) >= 3 and grounded(text, topic)
    return text if says_something else fallback
