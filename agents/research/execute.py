"""execute_task: one attempt at a task, with tools, answered from evidence.

The attempt, in order:
1. search first: every search tool is queried with the task (agents.research.evidence), so
   the agent's prompt already holds evidence and a model that answers at once answers from it;
2. with no tool steps (the embedded model's default: its own search queries are noise) and a
   search that found something, that search is the evidence;
3. otherwise the executor agent (agents.research.executor_agent) looks further with its tools,
   within the run's tool-step limit;
4. an agent that stopped at its limit, "answered" with a tool call or paraphrased its own
   instructions (agents.research.answer_checks) is replaced by one call that answers from
   everything the tools returned, with the executor's memory as its system message.

A retry's prompt carries the previous attempt and the reflection on it; a task that builds on
earlier tasks sees their results. The tools are opened for the attempt and closed after it.
"""

from __future__ import annotations

from langchain_core.messages import HumanMessage, SystemMessage
from langchain_core.tools import BaseTool
from langgraph.runtime import Runtime

from agents import resources
from agents.research.answer_checks import echoes_a_tool_call, says_something
from agents.research.evidence import evidence_text, first_search, found_something, trajectory_of
from agents.research.executor_agent import EXECUTOR, ExecutorRun, run_executor
from agents.research.memory_context import memory_block
from core.context import Context
from core.output_budget import ROLE_BUDGETS, with_max_tokens
from core.state import TaskState
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


def execute_task(state: TaskState, runtime: Runtime[Context]) -> dict:
    """One attempt at the task: its result, its tool steps, and the attempt's number."""
    ctx = runtime.context
    task = state["task"]
    memory = memory_block(resources.memory(runtime), ctx, task, ctx.executor_model)
    system = EXECUTOR_SYSTEM.format(memory=memory)
    with resources.open_tools(ctx) as tools:
        found, first = first_search(ctx, tools, task)
        if not ctx.tool_steps and found_something(found):  # the search is the evidence
            answer, steps, evidence = "", first, found
        else:
            run, prompt = _agent_run(ctx, tools, system, state, found)
            # EXECUTOR is named here so LangGraph finds it as this node's subgraph
            answer, messages = run_executor(EXECUTOR, run, prompt)
            steps = first + trajectory_of(messages)
            evidence = evidence_text(steps)
        # stopped at the step limit, "answered" with a tool call or with its instructions
        if steps and (echoes_a_tool_call(answer, tools) or not says_something(answer)):
            answer = _answer_from(ctx, system, state, evidence)
    return {
        "task_index": state["task_index"],  # so each update says which task it is about
        "result": answer.strip() or "(no result)",
        "trajectory": steps,
        "attempt": state.get("attempt", 0) + 1,
    }


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
    model = with_max_tokens(ctx.models.chat(ctx.executor_model), ROLE_BUDGETS["executor"])
    # a search for the task's words alone repeats the one above, when it found something
    searched = task if found_something(found) else ""
    return ExecutorRun(model, tools, system, ctx.tool_steps, topic=task, searched=searched), prompt


def _answer_from(ctx: Context, system: str, state: TaskState, evidence: str) -> str:
    """One call: the task answered from `evidence`, with the executor's memory as its system
    message (the agent's own prefix, so the model's prompt cache is reused)."""
    model = with_max_tokens(ctx.models.chat(ctx.executor_model), ROLE_BUDGETS["grounded_answer"])
    prompt = GROUNDED_ANSWER.format(
        goal=data(state.get("optimized_goal", "")),
        task=data(state["task"]),
        evidence=evidence,
        dependencies=_dependencies_section(state),
        **_retry(state),
    )
    return model.invoke([SystemMessage(system), HumanMessage(prompt)]).text


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
