"""Web search through Tavily (`langchain-tavily`), wrapped so failures reach the model as text.

    tool = make_tavily_tool()            # needs TAVILY_API_KEY (or api_key=...)
    tool.invoke({"query": "..."})        # "[1] Title (url)\\nsnippet ..." or "Error: ..."

Network errors, quota errors and empty results never raise out of the tool: they are logged and
returned as an "Error: ..." string, so one failed search does not end the run.
"""

from __future__ import annotations

import logging
import os
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

from langchain_core.tools import ToolException
from langchain_tavily import TavilySearch

from agents.tools.grounding import SearchTool, make_search_tool

log = logging.getLogger(__name__)

WEB_SEARCH_TOOL_NAME = "web_search"
TIMEOUT_S = 30.0
MAX_SNIPPET_CHARS = 800
# langchain-tavily posts without a timeout; a worker thread lets a stalled request be abandoned.
_POOL = ThreadPoolExecutor(max_workers=2, thread_name_prefix="tavily")


class SearchUnavailable(RuntimeError):
    """Web search cannot be configured (no API key); the message says how to enable it."""


def tavily_available() -> bool:
    """True when a Tavily API key is present in the environment."""
    return bool(os.environ.get("TAVILY_API_KEY", "").strip())


def format_results(response: dict[str, Any], query: str) -> str:
    """Tavily's JSON response as numbered `title (url)` blocks, its direct answer first."""
    lines = []
    if response.get("answer"):
        lines.append(f"Answer: {response['answer']}")
    for n, item in enumerate(response.get("results") or [], 1):
        snippet = " ".join(str(item.get("content") or "").split())
        if len(snippet) > MAX_SNIPPET_CHARS:
            snippet = snippet[:MAX_SNIPPET_CHARS].rstrip() + " …"
        lines.append(f"[{n}] {item.get('title') or 'Untitled'} ({item.get('url', '')})\n{snippet}")
    return "\n\n".join(lines) or f"No web results for {query!r}. Try other keywords."


def _search_once(tavily: TavilySearch, query: str, k: int) -> str:
    """One Tavily call with `k` results; every failure becomes an "Error: ..." string."""
    tool = tavily.model_copy(update={"max_results": k}) if k != tavily.max_results else tavily
    future = _POOL.submit(tool.invoke, {"query": query})
    try:
        response = future.result(timeout=TIMEOUT_S)
    except FutureTimeout:
        log.warning("web search timed out after %.0fs: %r", TIMEOUT_S, query)
        return f"Error: web search timed out after {TIMEOUT_S:.0f}s; try again or use other tools."
    except ToolException as exc:  # TavilySearch raises this for "no results"
        return f"No web results: {exc}"
    except Exception as exc:  # requests/aiohttp/pydantic errors; the model should see, not crash
        log.warning("web search failed for %r: %s", query, exc)
        return f"Error: web search failed: {exc}"
    if isinstance(response, dict) and "error" in response:
        # TavilySearch returns {"error": exc} for HTTP errors (bad key, quota, network).
        log.warning("web search failed for %r: %s", query, response["error"])
        return f"Error: web search failed: {response['error']}"
    if not isinstance(response, dict):
        return f"Error: unexpected web search response: {str(response)[:200]}"
    return format_results(response, query)


def make_tavily_tool(
    *, api_key: str | None = None, k: int = 5, api_base_url: str | None = None
) -> SearchTool:
    """A `web_search(query) -> str` tool on TavilySearch; raises SearchUnavailable without a key.

    `api_base_url` points the client elsewhere (a proxy, or a local stand-in in tests).
    """
    key = api_key or os.environ.get("TAVILY_API_KEY", "").strip()
    if not key:
        raise SearchUnavailable(
            "web search needs a Tavily key: set TAVILY_API_KEY (https://tavily.com) or run "
            "offline with --corpus DIR"
        )
    kwargs: dict[str, Any] = {"tavily_api_key": key, "max_results": k}
    if api_base_url:
        kwargs["api_base_url"] = api_base_url.rstrip("/")
    tavily = TavilySearch(**kwargs)

    def search(query: str, n: int) -> str:
        return _search_once(tavily, query, n)

    description = (
        "Search the web. Input: a short keyword query. Returns the top results with titles, "
        "URLs and snippets."
    )
    return make_search_tool(search, name=WEB_SEARCH_TOOL_NAME, description=description, k=k)
