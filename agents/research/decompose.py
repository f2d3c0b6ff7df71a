"""decompose_query: the goal → 3-5 validated, executable tasks."""

from __future__ import annotations

import re

from langgraph.runtime import Runtime
from pydantic import BaseModel, Field

from agents import resources
from agents.research.memory_context import memory_block
from core.context import Context
from core.state import ReflectiveAgentState
from core.structured import ask_structured
from prompts.decompose import DECOMPOSER

MAX_TASKS = 5


class DecomposedTasks(BaseModel):
    tasks: list[str] = Field(description="3 to 5 concrete tasks, one sentence each.", max_length=5)


def _key(task: str) -> str:
    return " ".join(re.findall(r"\w+", task.lower()))


def clean_tasks(candidates: list[str], goal: str) -> list[str]:
    """Drop empty, junk (fewer than 3 words or no letters) and duplicate tasks; keep at most 5.

    If nothing usable remains, the goal itself becomes the single task.
    """
    tasks: list[str] = []
    seen: set[str] = set()
    for raw in candidates:
        task = re.sub(r"^\s*(?:[-*•]|\d+[.)])\s*", "", str(raw)).strip()
        key = _key(task)
        if len(key.split()) < 3 or not re.search(r"[^\W\d_]", task) or key in seen:
            continue
        seen.add(key)
        tasks.append(task)
    return tasks[:MAX_TASKS] or [goal.strip() or "Answer the request."]


def decompose_query(state: ReflectiveAgentState, runtime: Runtime[Context]) -> dict:
    ctx = runtime.context
    goal = state.get("optimized_goal") or state["query"]
    model = resources.chat_model(ctx.planner_model)
    memory = memory_block(resources.memory(runtime), ctx, goal, ctx.planner_model)
    prompt = DECOMPOSER.format(memory=memory, goal=goal)
    out = ask_structured(model, DecomposedTasks, prompt)
    tasks = clean_tasks(out.tasks if out else [], goal)
    return {"tasks": tasks, "current_task_index": 0, "retry_count": 0}
