"""What execute_task answers from: its first search for the task, and its agent's tool steps.

Before the agent starts, every search tool is queried with the task itself (`ground`), so a
model that answers at once answers from evidence; a tiny local model often calls no tool at all.
The agent's tool calls and what they returned become the attempt's trajectory (what online
workflow induction reads) and, as text, the evidence an answer can be written from.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.tools import BaseTool

from agents.research.sources import sources_in, unique
from agents.tools.browser_tools import page_opened
from agents.tools.search_tool import SearchTool
from core.context import Context
from memory.packing import context_window
from prompts.research import SEARCH_FAILED, SEARCH_SECTION, TRUNCATED
from prompts.untrusted import data

log = logging.getLogger(__name__)
MAX_OBSERVATION = 2000
EVIDENCE_CHARS = 6000  # ~1,500 tokens: room for the task's own searches and the answer
# hits of the request's first search (how often they hold what a question needs:
# `python -m evals.hotpotqa.coverage FILE --hits`)
EVIDENCE_HITS = 5


def ground(query: str, tools: Sequence[BaseTool], *, k: int = 3, max_chars: int = 6000) -> str:
    """Run every search tool in `tools` on `query`; their results, each under its tool's name.

    Non-search tools (the browser) are ignored. Returns "" when no search tool is configured.
    Each tool gets an equal share of `max_chars`; errors come back as text, never raised.
    """
    searchers = [tool for tool in tools if isinstance(tool, SearchTool)]
    if not searchers or not query.strip():
        return ""
    share = max(200, max_chars // len(searchers))
    sections = []
    for tool in searchers:
        try:
            text = tool.search(query, k)
        except Exception as exc:  # a tool's own failure must not stop the executor's fallback
            log.warning("grounding with %s failed: %s", tool.name, exc)
            text = SEARCH_FAILED.format(tool=tool.name, error=exc)
        if len(text) > share:
            text = text[:share].rstrip() + TRUNCATED
        sections.append(SEARCH_SECTION.format(tool=tool.name, text=data(text)))  # found: data
    return "\n".join(sections)


def first_search(
    ctx: Context, tools: list[BaseTool], task: str
) -> tuple[str, list[dict[str, Any]]]:
    """What the search tools found for the task (`ground`'s sections), and its step."""
    model = ctx.chat("executor")
    # ~0.4 characters of evidence per token of context, capped: small models read slowly
    budget = min(4000, context_window(model, ctx.spec("executor")) * 2 // 5)
    evidence = ground(task, tools, max_chars=budget)
    if not evidence.strip():
        return "", []
    step = {"tool": "search", "args": {"query": task}, "observation": evidence[:MAX_OBSERVATION]}
    return evidence, [step]


def found_something(evidence: str) -> bool:
    """Did a search tool return results (not only errors) in `ground`'s sections?"""
    bodies = re.findall(r"<[\w-]+>\n(.*?)\n</[\w-]+>", evidence, re.S)
    return any(b.strip() and not b.startswith("Error") for b in bodies)


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


def step_sources(steps: list[dict[str, Any]]) -> list[str]:
    """The documents and pages the steps read: the sources of search hits, pages opened (an
    address the browser failed or refused to open was not read)."""
    found: list[str] = []
    for step in steps:
        if step["tool"] != "browser_open":
            found.extend(sources_in(step["observation"]))
        elif page_opened([(step["tool"], step["observation"])]):
            found.append(str(step["args"].get("url")))
    return unique(found)


def evidence_text(steps: list[dict[str, Any]]) -> str:
    """The steps' observations, each under its tool's name, as an answer's evidence."""
    return "\n".join(
        f"<{data(s['tool'])}>\n{data(s['observation'])}\n</{data(s['tool'])}>" for s in steps
    )
