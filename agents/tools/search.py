"""Web search through Tavily (`langchain-tavily`), wrapped so failures reach the model as text.

    tool = make_tavily_tool()            # needs TAVILY_API_KEY (or api_key=...)
    tool.invoke({"query": "..."})        # "[1] Title (url)\\nsnippet ..." or "Error: ..."

Network errors, quota errors and empty results never raise out of the tool: they are logged and
returned as an "Error: ..." string, so one failed search does not end the run. Every call is
bounded (TIMEOUT_S): langchain-tavily posts without a timeout, so the call runs in its own
daemon thread that the tool stops waiting for; a hung endpoint can neither stall the run nor
keep the process alive at exit (a shared executor's threads are joined at exit). `on_urls`
receives each answer's result urls (the browser allows their origins).
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from typing import Any

from langchain_core.tools import ToolException
from langchain_tavily import TavilySearch

from agents.tools.search_tool import SearchTool, make_search_tool

log = logging.getLogger(__name__)

WEB_SEARCH_TOOL_NAME = "web_search"
TIMEOUT_S = 20.0
MAX_SNIPPET_CHARS = 800


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


def _bounded(call: Callable[[], Any], timeout_s: float) -> Any:
    """`call()` in a daemon thread; TimeoutError when it has not returned after `timeout_s`."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = call()
        except Exception as exc:  # noqa: BLE001 - handed to the caller below
            box["error"] = exc

    worker = threading.Thread(target=run, name="tavily-call", daemon=True)
    worker.start()
    worker.join(timeout_s)
    if worker.is_alive():
        raise TimeoutError(f"no answer after {timeout_s:.0f}s")
    if "error" in box:
        raise box["error"]
    return box.get("value")


def _search_once(
    tavily: TavilySearch,
    query: str,
    k: int,
    timeout_s: float = TIMEOUT_S,
    on_urls: Callable[[list[str]], None] | None = None,
) -> str:
    """One Tavily call with `k` results; every failure becomes an "Error: ..." string."""
    tool = tavily.model_copy(update={"max_results": k}) if k != tavily.max_results else tavily
    try:
        response = _bounded(lambda: tool.invoke({"query": query}), timeout_s)
    except TimeoutError:
        log.warning("web search timed out after %.0fs: %r", timeout_s, query)
        return f"Error: web search timed out after {timeout_s:.0f}s; try again or use other tools."
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
    if on_urls is not None:
        on_urls([str(r["url"]) for r in response.get("results") or [] if r.get("url")])
    return format_results(response, query)


def make_tavily_tool(
    *,
    api_key: str | None = None,
    k: int = 5,
    api_base_url: str | None = None,
    timeout_s: float = TIMEOUT_S,
    on_urls: Callable[[list[str]], None] | None = None,
) -> SearchTool:
    """A `web_search(query) -> str` tool on TavilySearch; raises SearchUnavailable without a key.

    `api_base_url` points the client elsewhere (a proxy, or a local stand-in in tests);
    `timeout_s` bounds each call; `on_urls` gets the result urls of each answer.
    """
    key = api_key or os.environ.get("TAVILY_API_KEY", "").strip()
    if not key:
        raise SearchUnavailable(
            "web search needs a Tavily key: set TAVILY_API_KEY (https://tavily.com) or search "
            "a folder of documents offline (a corpus: --corpus DIR, or Context.corpus_dir)"
        )
    kwargs: dict[str, Any] = {"tavily_api_key": key, "max_results": k}
    if api_base_url:
        kwargs["api_base_url"] = api_base_url.rstrip("/")
    tavily = TavilySearch(**kwargs)

    def search(query: str, n: int) -> str:
        return _search_once(tavily, query, n, timeout_s, on_urls)

    description = (
        "Search the web. Input: a short keyword query. Returns the top results with titles, "
        "URLs and snippets."
    )
    return make_search_tool(search, name=WEB_SEARCH_TOOL_NAME, description=description, k=k)
