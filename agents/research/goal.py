"""goal_setting: request → goal (passive goal creator) → SMART goal → shape of the answer."""

from __future__ import annotations

import logging

from langgraph.runtime import Runtime
from pydantic import BaseModel, Field

from agents import resources
from agents.research.memory_context import memory_block
from core.context import Context
from core.state import ReflectiveAgentState
from core.structured import ask_structured
from prompts.goal import GOAL_CREATOR, PROMPT_OPTIMIZER, RESPONSE_OPTIMIZER

log = logging.getLogger(__name__)
DEFAULT_SHAPE = "A direct answer first, then the supporting facts with their sources."


class Goal(BaseModel):
    description: str = Field(description="The goal in one sentence.")


class OptimizedGoal(BaseModel):
    description: str = Field(description="The SMART goal.")
    metrics: list[str] = Field(description="1-3 measurable success criteria.", max_length=3)

    def text(self) -> str:
        criteria = "\n".join(f"- {m}" for m in self.metrics if m.strip())
        return (
            f"{self.description}\nSuccess criteria:\n{criteria}" if criteria else self.description
        )


def goal_setting(state: ReflectiveAgentState, runtime: Runtime[Context]) -> dict:
    ctx = runtime.context
    if runtime.store is None:
        log.info("no store: memory is off for this run (compile the graph with store=…)")
    model = resources.chat_model(ctx.planner_model)
    query = state["query"]
    memory = memory_block(resources.memory(runtime), ctx, query, ctx.planner_model)
    goal = ask_structured(model, Goal, GOAL_CREATOR.format(memory=memory, query=query))
    goal_text = _usable(goal.description if goal else "", fallback=query)
    smart = ask_structured(
        model, OptimizedGoal, PROMPT_OPTIMIZER.format(memory=memory, goal=goal_text)
    )
    optimized = _usable(smart.text() if smart else "", fallback=goal_text)
    shape = model.invoke(RESPONSE_OPTIMIZER.format(memory=memory, goal=optimized)).text
    return {
        "optimized_goal": optimized,
        "optimized_response": _usable(shape, fallback=DEFAULT_SHAPE),
        "current_task_index": 0,
        "retry_count": 0,
        "results": [],
        "trajectories": [],
    }


def _usable(text: str, *, fallback: str) -> str:
    """A model's text if it says something, else the fallback (tiny models return blanks)."""
    text = text.strip()
    return text if len(text.split()) >= 3 else fallback
