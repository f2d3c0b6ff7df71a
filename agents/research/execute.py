"""execute_task: the executor agent (agents/research/executor_agent.py) runs one attempt at a task.

Evidence first: the search tools are queried with the task before the agent starts, and their
results are in its prompt, so a model that answers at once answers from evidence in one call,
and the agent's tool steps look further only when needed. With no tool steps (the embedded
model's default: its own search queries are noise) the attempt is one call that answers from
that search, with the executor's memory as its system message. A retry's prompt carries the
previous attempt and the reflection on it; a task that builds on earlier tasks sees their
results. When the agent uses its tool steps up, or "answers" with a tool call, the model
answers from everything its tools returned.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool
from langgraph.errors import GraphRecursionError
from langgraph.runtime import Runtime

from agents import resources
from agents.research.answer_text import PromptEcho
from agents.research.executor_agent import EXECUTOR, ExecutorRun
from agents.research.memory_context import memory_block
from core.context import Context
from core.output_budget import ROLE_BUDGETS, with_max_tokens
from core.state import TaskState
from memory.budget import context_window
from prompts.execute import (
    DEPENDENCIES_SECTION,
    EVIDENCE_SECTION,
    EXECUTOR_SYSTEM,
    EXECUTOR_TASK,
    GROUNDED_ANSWER,
    RETRY_NOTE,
    RETRY_SECTION,
)
from prompts.untrusted import data

log = logging.getLogger(__name__)
MAX_OBSERVATION = 2000


def _retry(state: TaskState) -> dict[str, str]:
    """On a retry: the previous attempt at this task, the reflection that rejected it, and
    the note asking to fix it (the `retry` and `retry_note` prompt fields; empty otherwise)."""
    if not state.get("attempt") or not state.get("needs_retry"):
        return {"retry": "", "retry_note": ""}
    section = RETRY_SECTION.format(
        previous=data(state.get("result", "")),
        reflection=data(state.get("last_reflection") or "(not available)"),
    )
    return {"retry": section, "retry_note": RETRY_NOTE}


def _dependencies_section(state: TaskState) -> str:
    deps = state.get("dependencies") or []
    if not deps:
        return ""
    blocks = [
        f"<result>\n<task>{data(d['task'])}</task>\n{data(d['result'])}\n</result>" for d in deps
    ]
    return DEPENDENCIES_SECTION.format(results="\n".join(blocks))


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
    agent: Any, ctx: Context, run: ExecutorRun, prompt: str
) -> tuple[str, list[BaseMessage]]:
    """The agent's final answer ("" if it had none) and every message of the attempt."""
    # each tool step is a model call and a tool call; +3 for the final answer and slack
    config: RunnableConfig = {"recursion_limit": 2 * ctx.tool_steps + 3}
    messages: list[BaseMessage] = [HumanMessage(prompt)]
    try:
        for values in agent.stream(
            {"messages": messages}, config, context=run, stream_mode="values"
        ):
            messages = values["messages"]
    except GraphRecursionError:
        log.warning("executor hit its step limit; answering from the evidence gathered")
        return "", messages
    last = messages[-1]
    return (last.text if isinstance(last, AIMessage) and not last.tool_calls else ""), messages


_CALL = re.compile(r"\s*(?:Calling\s+\w+\s*\(|\{\s*\"tool\"\s*:)")


def echoes_a_tool_call(answer: str, tools: list[BaseTool]) -> bool:
    """An "answer" that only restates a tool call (`Calling corpus_search({...})`, the way
    earlier calls appear in a small model's transcript, of any tool name, or the call's JSON)
    answers nothing."""
    text = answer.strip()
    return bool(_CALL.match(text)) or any(text.startswith(t.name + "(") for t in tools)


# the executor's own instructions: a sentence half made of runs copied from them is theirs
_OWN_PROMPTS = PromptEcho((EXECUTOR_TASK, GROUNDED_ANSWER, RETRY_NOTE), share=0.5)


def _says_something(answer: str) -> bool:
    """Does `answer` say more than the executor's own instructions (seen: its instructions
    paraphrased back as the answer)?"""
    sentences = [s for s in re.split(r"(?<=[.!?])\s+|\n+", answer) if re.search(r"\w", s)]
    return any(not _OWN_PROMPTS.echoes(s) for s in sentences)


def _evidence(steps: list[dict[str, Any]]) -> str:
    return "\n".join(
        f"<{data(s['tool'])}>\n{data(s['observation'])}\n</{data(s['tool'])}>" for s in steps
    )


def _answer_from(
    ctx: Context, system: str, state: TaskState, evidence: str, retry: dict[str, str]
) -> str:
    """One call: the task answered from `evidence`, with the executor's memory as its system
    message (the agent's own prefix, so the model's prompt cache is reused)."""
    model = with_max_tokens(
        resources.chat_model(ctx.executor_model), ROLE_BUDGETS["grounded_answer"]
    )
    prompt = GROUNDED_ANSWER.format(
        goal=data(state.get("optimized_goal", "")),
        task=data(state["task"]),
        evidence=evidence,
        dependencies=_dependencies_section(state),
        **retry,
    )
    return model.invoke([SystemMessage(system), HumanMessage(prompt)]).text


def _first_search(
    ctx: Context, tools: list[BaseTool], task: str
) -> tuple[str, list[dict[str, Any]]]:
    """What the search tools found for the task (`ground`'s sections), and its step."""
    from agents.tools.grounding import ground

    model = resources.chat_model(ctx.executor_model)
    # ~0.4 characters of evidence per token of context, capped: small models read slowly
    budget = min(4000, context_window(model, ctx.executor_model) * 2 // 5)
    evidence = ground(task, tools, max_chars=budget)
    if not evidence.strip():
        return "", []
    step = {"tool": "search", "args": {"query": task}, "observation": evidence[:MAX_OBSERVATION]}
    return evidence, [step]


def _found_something(evidence: str) -> bool:
    """Did a search tool return results (not only errors) in `ground`'s sections?"""
    bodies = re.findall(r"<[\w-]+>\n(.*?)\n</[\w-]+>", evidence, re.S)
    return any(b.strip() and not b.startswith("Error") for b in bodies)


def _agent_run(
    ctx: Context, tools: list[BaseTool], system: str, state: TaskState, found: str
) -> tuple[ExecutorRun, str]:
    """The executor agent's context and prompt for this attempt (`found`: what the search for
    the task found). With no tool steps (and nothing found) the agent is one call that answers
    on its own."""
    task = state["task"]
    prompt = EXECUTOR_TASK.format(
        task=data(task),
        goal=data(state.get("optimized_goal", "")),
        evidence=EVIDENCE_SECTION.format(evidence=found) if found else "",
        dependencies=_dependencies_section(state),
        **_retry(state),
    )
    # tool choices and the agent's own short answer share the executor's budget
    model = with_max_tokens(resources.chat_model(ctx.executor_model), ROLE_BUDGETS["executor"])
    # a search for the task's words alone repeats the one above, when it found something
    searched = task if _found_something(found) else ""
    return ExecutorRun(model, tools, system, ctx.tool_steps, topic=task, searched=searched), prompt


def execute_task(state: TaskState, runtime: Runtime[Context]) -> dict:
    ctx = runtime.context
    task = state["task"]
    retry = _retry(state)
    memory = memory_block(resources.memory(runtime), ctx, task, ctx.executor_model)
    with resources.open_tools(ctx) as tools:
        found, first = _first_search(ctx, tools, task)
        system = EXECUTOR_SYSTEM.format(memory=memory)
        if not ctx.tool_steps and _found_something(found):  # the search is the evidence
            answer, steps, evidence = "", first, found
        else:
            run, prompt = _agent_run(ctx, tools, system, state, found)
            # EXECUTOR is named here so LangGraph finds it as this node's subgraph
            answer, messages = _run_agent(EXECUTOR, ctx, run, prompt)
            steps = first + trajectory_of(messages)
            evidence = _evidence(steps)
        # stopped at the step limit, "answered" with a tool call or by copying its instructions
        # back: answer from the evidence
        if steps and (echoes_a_tool_call(answer, tools) or not _says_something(answer)):
            answer = _answer_from(ctx, system, state, evidence, retry)
    return {
        "task_index": state["task_index"],  # so each update says which task it is about
        "result": answer.strip() or "(no result)",
        "trajectory": steps,
        "attempt": state.get("attempt", 0) + 1,
    }
