"""execute_task: one attempt at a task, with tools, answered from evidence.

The attempt, in order:
1. search first: every search tool is queried with the task (and what the tasks it builds on
   found), so the agent's prompt already holds evidence; only passages the run's evidence does
   not already show are added (agents.research.sources); a step (not the request's own task)
   whose search finds only passages the run has read is not run: no call, no judgment;
2. with no tool steps (SmolLM2's default: its own search queries are noise) and a search that
   found something, the attempt is one call that answers from the evidence;
3. otherwise the executor agent (agents.research.executor_agent) looks further with its tools,
   within the run's tool-step limit;
4. an agent that stopped at its limit, "answered" with a tool call or paraphrased its own
   instructions (says_something, below) is replaced by one call that answers from
   everything the tools returned.
Every prompt opens with the run's request and evidence (agents.research.prompting), then
memory and the task. A retry's prompt carries the previous attempt and the reflection on it; a
task that builds on earlier tasks sees their results. The tools are opened for the attempt and
closed after it.
"""

from __future__ import annotations

import re
from functools import partial

from langchain_core.tools import BaseTool
from langgraph.runtime import Runtime

from agents import resources
from agents.research.answer_text import PromptEcho
from agents.research.budget import budget_stop
from agents.research.evidence import (
    evidence_text,
    first_search,
    found_something,
    step_sources,
    trajectory_of,
)
from agents.research.executor_agent import EXECUTOR, ExecutorRun, run_executor
from agents.research.memory_context import memory_block
from agents.research.prompting import human, opening, system_message
from agents.research.sources import beyond, says_only_known, sources_in, unique
from core.context import Context
from core.output_limits import OUTPUT_LIMITS, with_max_tokens
from core.state import TaskState
from prompts.research import (
    DEPENDENCIES_SECTION,
    DEPENDENCY_RESULT,
    EVIDENCE_SECTION,
    EXECUTOR_TASK,
    GROUNDED_ANSWER,
    NO_RESULT,
    NOTHING_NEW,
    RETRY_NOTE,
    RETRY_SECTION,
    preamble,
)
from prompts.untrusted import data

DEPENDENCY_CHARS = 200  # of each earlier result, added to the task's search


def execute_task(state: TaskState, runtime: Runtime[Context]) -> dict:
    """One attempt at the task: its result, its tool steps, what it read, the attempt number."""
    ctx = runtime.context
    memory = memory_block(resources.memory(runtime), ctx, state["task"], "executor")
    head = {"opening": opening(state["query"], state.get("evidence", "")), "memory": memory.text}
    with resources.open_tools(ctx) as tools:
        found, first = first_search(ctx, tools, search_query(state))
        # recorded as the task's own search: the earlier results it carries are this run's
        # particulars, not a step to learn (and cut at a workflow's line length, such a step
        # is no action, so induction would drop the whole run)
        first = [{**step, "args": {"query": state["task"]}} for step in first]
        shown = beyond(found, state.get("evidence", ""))
        if nothing_new(state, found, shown):  # a step that would read what the run read
            return _skipped(state, first)
        later: list[dict] = []
        if not ctx.tool_steps and found_something(found):  # the search is the evidence
            answer, evidence = "", shown
        else:
            run, prompt = _agent_run(ctx, tools, state, head, shown)
            # EXECUTOR is named here so LangGraph finds it as this node's subgraph
            answer, messages = run_executor(EXECUTOR, run, prompt)
            later = trajectory_of(messages)
            evidence = "\n".join(filter(None, [shown, evidence_text(later)]))
        steps = first + later
        # stopped at the step limit, "answered" with a tool call or with its instructions
        if steps and (echoes_a_tool_call(answer, tools) or not says_something(answer)):
            answer = _answer_from(ctx, state, head, evidence)
    return {
        "task_index": state["task_index"],  # so each update says which task it is about
        "result": answer.strip() or NO_RESULT,
        "task_evidence": evidence,
        "trajectory": steps,
        "sources": unique(sources_in(found) + step_sources(later)),
        "attempt": state.get("attempt", 0) + 1,
        "recalled": memory.ids,
    }


def nothing_new(state: TaskState, found: str, shown: str) -> bool:
    """Is this a step (not the plan's last task, the one that answers, nor the request's own
    task, nor a retry) whose search found passages, every one of them in the run's evidence
    or read by an earlier task? Its answer would repeat what the run knows, at the cost of a
    call and a judgment."""
    answers = state.get("last") or state["task"] == state["query"]
    if answers or state.get("attempt") or not found_something(found):
        return False
    return says_only_known(beyond(shown, "", state.get("known") or []))


def _skipped(state: TaskState, steps: list[dict]) -> dict:
    return {
        "task_index": state["task_index"],
        "result": NOTHING_NEW,
        "task_evidence": "",
        "trajectory": steps,
        "attempt": 1,
        "skipped": True,
    }


def search_query(state: TaskState) -> str:
    """The task, and the start of each result it builds on: a later hop searches with what the
    earlier one found (the creator's name, not "this person")."""
    found = [d["result"][:DEPENDENCY_CHARS] for d in state.get("dependencies") or []]
    return " ".join([state["task"], *found])


def _agent_run(
    ctx: Context, tools: list[BaseTool], state: TaskState, head: dict[str, str], shown: str
) -> tuple[ExecutorRun, str]:
    """The executor agent's context and prompt for this attempt (`shown`: what the task's own
    search added to the run's evidence). With no tool steps (and nothing found) the agent is
    one call that answers on its own."""
    prompt = EXECUTOR_TASK.format(
        **head,
        task=data(state["task"]),
        evidence=EVIDENCE_SECTION.format(evidence=shown) if shown else "",
        dependencies=_dependencies_section(state),
        **_retry(state),
    )
    # tool choices and the agent's own short answer share the executor's budget
    model = with_max_tokens(ctx.chat("executor"), OUTPUT_LIMITS["executor"])
    # a search for the task's words alone repeats the one above
    searched = search_query(state) if shown else ""
    run = ExecutorRun(
        model,
        tools,
        preamble(ctx.system_prompt),
        ctx.tool_steps,
        topic=state["task"],
        searched=searched,
        stop=partial(budget_stop, ctx),  # no tool step once the run's budget is spent
    )
    return run, prompt


def _answer_from(ctx: Context, state: TaskState, head: dict[str, str], evidence: str) -> str:
    """One call: the task answered from the run's evidence and `evidence` (what the attempt's
    searches and tools added)."""
    model = with_max_tokens(ctx.chat("executor"), OUTPUT_LIMITS["grounded_answer"])
    prompt = GROUNDED_ANSWER.format(
        **head,
        task=data(state["task"]),
        evidence=EVIDENCE_SECTION.format(evidence=evidence) if evidence.strip() else "",
        dependencies=_dependencies_section(state),
        **_retry(state),
    )
    return model.invoke([system_message(ctx), human(prompt)]).text


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
        DEPENDENCY_RESULT.format(task=data(d["task"]), result=data(d["result"])) for d in deps
    ]
    return DEPENDENCIES_SECTION.format(results="\n".join(blocks))


# -- does the agent's answer answer anything? A small model's may only restate a tool call or
# paraphrase its own instructions
_CALL = re.compile(r"\s*(?:Calling\s+\w+\s*\(|\{\s*\"tool\"\s*:)")
# the executor's own instructions: a sentence half made of runs copied from them is theirs
_OWN_PROMPTS = PromptEcho((EXECUTOR_TASK, GROUNDED_ANSWER, RETRY_NOTE), share=0.5)


def echoes_a_tool_call(answer: str, tools: list[BaseTool]) -> bool:
    """An "answer" that only restates a tool call (`Calling corpus_search({...})`, the way
    earlier calls appear in a small model's transcript, of any tool name, or the call's JSON)
    answers nothing."""
    text = answer.strip()
    return bool(_CALL.match(text)) or any(text.startswith(t.name + "(") for t in tools)


def says_something(answer: str) -> bool:
    """Does `answer` say more than the executor's own instructions (a small model paraphrases
    them back as its answer)?"""
    sentences = [s for s in re.split(r"(?<=[.!?])\s+|\n+", answer) if re.search(r"\w", s)]
    return any(not _OWN_PROMPTS.echoes(s) for s in sentences)
