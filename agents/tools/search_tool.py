"""SearchTool: a `query -> text` tool that can also be searched directly, with a k of its own.

The model sees a tool that takes only `query`; the executor's first search for a task calls
`tool.search(task, k)` on every SearchTool itself (agents.research.evidence.ground).
"""

from __future__ import annotations

from collections.abc import Callable

from langchain_core.tools import StructuredTool
from pydantic import Field


class SearchTool(StructuredTool):
    """A `query -> text` tool that also exposes `search(query, k)` for direct grounding."""

    search: Callable[[str, int], str] = Field(exclude=True)


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
