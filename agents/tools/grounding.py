"""Search tools that can also be queried directly, and `ground`, which does so for the executor.

A tiny local model often answers without calling any tool; the executor then calls
`ground(task, tools)` and hands the combined search results to the model, so the answer still
rests on evidence.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence

from langchain_core.tools import BaseTool, StructuredTool
from pydantic import Field

from agents.tools.bm25 import STOPWORDS
from prompts.untrusted import data

log = logging.getLogger(__name__)
# a schema's field name copied as the value ("{ description }", "{title}"): a small model's habit
_PLACEHOLDER = re.compile(r"\{\s*[A-Za-z_]*\s*\}")
MAX_KEYWORDS = 8


def keywords(text: str) -> list[str]:
    """The words of `text` that carry its topic, in order, once each: no function words,
    at least 3 characters, at least one letter (as written, so a search sees real words)."""
    found: dict[str, str] = {}
    for word in re.findall(r"\w+", text):
        key = word.lower()
        if key not in STOPWORDS and len(key) >= 3 and re.search(r"[^\W\d_]", key):
            found.setdefault(key, word)
    return list(found.values())


def copies_placeholder(text: str) -> bool:
    """Does `text` hold a schema field name as a value (`{ description }`, `{title}`)?"""
    return bool(_PLACEHOLDER.search(text))


def grounded(text: str, source: str) -> bool:
    """Does `text` keep to `source`'s topic? It shares a topic word with it (any, when the
    source has none) and copies no schema placeholder. Catches a small model's goals, tasks
    and search queries that drifted off the request ("{ description }", invented URLs)."""
    if copies_placeholder(text):
        return False
    topic = {w.lower() for w in keywords(source)}
    return not topic or bool(topic & {w.lower() for w in keywords(text)})


def on_topic_query(query: str, topic: str) -> str:
    """`query` if it is grounded in `topic`, else the topic's own keywords (at most 8)."""
    if grounded(query, topic) or not keywords(topic):
        return query
    return " ".join(keywords(topic)[:MAX_KEYWORDS])


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
