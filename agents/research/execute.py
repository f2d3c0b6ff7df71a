"""execute_task: a tool-calling agent (langchain's create_agent) runs the current task.

A retry replaces the task's result and its prompt carries the previous attempt and the
reflection on it. When the model makes no tool call (the embedded model often answers from
nothing), the configured search tools are queried with the task and the model answers from
their results, so every answer is grounded.
"""

from __future__ import annotations

import logging
from typing import Any

from langchain.agents import create_agent
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool
from langgraph.errors import GraphRecursionError
from langgraph.runtime import Runtime

from agents import resources
from agents.research.memory_context import memory_block
from core.context import Context
from core.state import ReflectiveAgentState
from memory.budget import context_window
from prompts.execute import EXECUTOR_SYSTEM, EXECUTOR_TASK, GROUNDED_ANSWER, RETRY_SECTION

log = logging.getLogger(__name__)
MAX_OBSERVATION = 2000


def _retry_section(state: ReflectiveAgentState, runtime: Runtime[Context]) -> str:
    """On a retry: the previous attempt at this task and the reflection that rejected it."""
    index = state.get("current_task_index", 0)
    results = state.get("results") or []
    if not state.get("retry_count") or index >= len(results):
        return ""
    ids = state.get("reflection_ids") or []
    last = resources.memory(runtime).get_reflection(ids[-1]) if ids else None
    return RETRY_SECTION.format(
        previous=results[index], reflection=last.reflection if last else "(not available)"
    )


def trajectory_of(messages: list[BaseMessage]) -> list[dict[str, Any]]:
    """The tool calls and their observations, in order (what online workflow induction reads)."""
    outputs = {m.tool_call_id: m.text for m in messages if isinstance(m, ToolMessage)}
    steps = []
    for m in messages:
        if isinstance(m, AIMessage):
            for call in m.tool_calls:
                observation = outputs.get(call.get("id") or "", "")
                steps.append(
                    {
                        "tool": call["name"],
                        "args": call["args"],
                        "observation": observation[:MAX_OBSERVATION],
                    }
                )
    return steps


def _run_agent(
    ctx: Context, tools: list[BaseTool], system: str, prompt: str
) -> tuple[str, list[dict[str, Any]]]:
    model = resources.chat_model(ctx.executor_model)
    agent = create_agent(model, tools=tools, system_prompt=system)
    config: RunnableConfig = {"recursion_limit": 2 * ctx.max_tool_steps + 1}
    try:
        messages = agent.invoke({"messages": [HumanMessage(prompt)]}, config)["messages"]
    except GraphRecursionError:
        log.warning(
            "executor hit its tool-step limit (%d); answering from the evidence", ctx.max_tool_steps
        )
        return "", []
    answer = messages[-1].text if isinstance(messages[-1], AIMessage) else ""
    return answer, trajectory_of(messages)


def _grounded(
    ctx: Context, tools: list[BaseTool], task: str, retry: str
) -> tuple[str, list[dict[str, Any]]]:
    """Search with the task itself, then have the model answer from what was found."""
    from agents.tools.grounding import ground

    model = resources.chat_model(ctx.executor_model)
    # ~0.6 characters of evidence per token of context, capped: small models read slowly
    budget = min(6000, context_window(model, ctx.executor_model) * 5 // 8)
    evidence = ground(task, tools, max_chars=budget)
    if not evidence.strip():
        return "", []
    answer = model.invoke(GROUNDED_ANSWER.format(task=task, evidence=evidence, retry=retry)).text
    step = {"tool": "search", "args": {"query": task}, "observation": evidence[:MAX_OBSERVATION]}
    return answer, [step]


def execute_task(state: ReflectiveAgentState, runtime: Runtime[Context]) -> dict:
    ctx = runtime.context
    index = state.get("current_task_index", 0)
    task = state["tasks"][index]
    retry = _retry_section(state, runtime)
    memory = memory_block(resources.memory(runtime), ctx, task, ctx.executor_model)
    system = EXECUTOR_SYSTEM.format(memory=memory)
    prompt = EXECUTOR_TASK.format(task=task, goal=state.get("optimized_goal", ""), retry=retry)
    with resources.open_tools(ctx) as tools:
        answer, steps = _run_agent(ctx, tools, system, prompt)
        if not steps:
            grounded, grounding_steps = _grounded(ctx, tools, task, retry)
            if grounded.strip():
                answer, steps = grounded, grounding_steps
    results = _replace(state.get("results") or [], index, answer.strip() or "(no result)")
    trajectories = _replace(state.get("trajectories") or [], index, steps)
    return {"results": results, "trajectories": trajectories}


def _replace(items: list, index: int, value: Any) -> list:
    """A copy of `items` with slot `index` set: a retry replaces, a new task appends."""
    out = list(items)
    out.extend([None] * (index + 1 - len(out)))
    out[index] = value
    return out
