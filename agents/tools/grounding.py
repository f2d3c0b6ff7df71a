"""Search tools that can also be queried directly, and `ground`, which does so for the executor.

A tiny local model often answers without calling any tool; the executor then calls
`ground(task, tools)` and hands the combined search results to the model, so the answer still
rests on evidence.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

from langchain_core.tools import BaseTool, StructuredTool
from pydantic import Field

from prompts.untrusted import data

log = logging.getLogger(__name__)


class SearchTool(StructuredTool):
    """A `query -> text` tool that also exposes `search(query, k)` for direct grounding."""

    search: Callable[[str, int], str] = Field(exclude=True)


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
            text = f"Error: {tool.name} failed: {exc}"
        if len(text) > share:
            text = text[:share].rstrip() + " …[truncated]"
        sections.append(f"<{tool.name}>\n{data(text)}\n</{tool.name}>")  # found text is data
    return "\n".join(sections)


def make_search_tool(
    search: Callable[[str, int], str], *, name: str, description: str, k: int
) -> SearchTool:
    """A SearchTool whose model-facing function takes only `query` and returns `k` results."""

    def run(query: str) -> str:
        return search(query, k)

    run.__doc__ = description
    return SearchTool(
        name=name,
        description=description,
        func=run,
        args_schema=StructuredTool.from_function(run, name=name).args_schema,
        search=search,
    )
