"""The executor's tools: local corpus search, Tavily web search, a Playwright browser.

    tools, toolset = build_tools(corpus_dir="docs/", use_browser=True)   # tavily=None: iff key set
    text = tools[0].search("who wrote X?", 3)   # a SearchTool can be searched directly
    toolset.close()                              # whoever built the tools closes them

Tool names: corpus_search(query), web_search(query), browser_open(url), browser_text(),
browser_tree(), browser_follow_link(link), browser_click(element_id),
browser_type(element_id, text, press_enter=False). Every tool returns a string; failures come
back as "Error: ..." / "Refused: ..." text instead of raising.

Modules: corpus.py (CorpusIndex, make_corpus_tool, save_passages), documents.py (file
parsing, passages), bm25.py, search.py (make_tavily_tool), browser_tools.py (the tools over
browser.session.BrowserSession, the guarded browser), search_tool.py (SearchTool).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from langchain_core.tools import BaseTool

from agents.tools.corpus import CorpusError, CorpusIndex, make_corpus_tool, save_passages
from agents.tools.search import SearchUnavailable, make_tavily_tool, tavily_available
from agents.tools.search_tool import SearchTool
from core.context import RunCache

if TYPE_CHECKING:
    from browser.session import BrowserSession

__all__ = [
    "CorpusError",
    "CorpusIndex",
    "SearchTool",
    "SearchUnavailable",
    "ToolSet",
    "build_tools",
    "make_corpus_tool",
    "make_tavily_tool",
    "save_passages",
]

log = logging.getLogger(__name__)


@dataclass
class ToolSet:
    """What `build_tools` made, and the one thing it must close (the browser): its builder
    closes it (agents.resources.open_tools, once per attempt)."""

    tools: list[BaseTool]
    browser: BrowserSession | None = None
    names: list[str] = field(default_factory=list)

    def close(self) -> None:
        """Close the browser if it was started; safe to call more than once."""
        if self.browser is not None:
            self.browser.close()

    async def aclose(self) -> None:
        if self.browser is not None:
            await self.browser.aclose()


def build_tools(
    *,
    corpus_dir: str | None = None,
    use_browser: bool = True,
    tavily: bool | None = None,
    allowed_origins: Iterable[str] = (),
    corpus_k: int = 3,
    cache: RunCache | None = None,
) -> tuple[list[BaseTool], ToolSet]:
    """The configured tools and a handle that closes them.

    corpus_dir: folder to search offline (CorpusError now if missing or empty).
    tavily: True = require it (SearchUnavailable without TAVILY_API_KEY), False = never,
        None = use it iff TAVILY_API_KEY is set.
    use_browser: add the six browser tools; chromium starts on first use. Skipped with a
        warning when chromium or playwright is not installed.
    allowed_origins: what the browser may open besides the corpus folder's files and, with web
        search, the origins of this run's search results ('*' = any public origin; private
        and link-local addresses only when named). Nothing else is allowed.
    cache: the run's cache, where the corpus index is kept between attempts.
    """
    tools: list[BaseTool] = []
    browser = _browser_session(allowed_origins, corpus_dir) if use_browser else None
    if corpus_dir:
        tools.append(make_corpus_tool(corpus_dir, k=corpus_k, cache=cache))
    if tavily or (tavily is None and tavily_available()):
        tools.append(make_tavily_tool(on_urls=browser.allow_urls if browser else None))
    if browser is not None:
        from agents.tools.browser_tools import browser_tools

        tools.extend(browser_tools(browser))
    return tools, ToolSet(tools=tools, browser=browser, names=[t.name for t in tools])


def _browser_session(
    allowed_origins: Iterable[str], corpus_dir: str | None
) -> BrowserSession | None:
    try:
        from browser.chromium import BrowserUnavailable, chromium_path
        from browser.origins import file_origin
        from browser.session import BrowserSession
    except ImportError as exc:
        log.warning("browser tools disabled: %s (pip install playwright)", exc)
        return None
    try:
        chromium_path()
    except BrowserUnavailable as exc:
        log.warning("browser tools disabled: %s", exc)
        return None
    entries = list(allowed_origins) + ([file_origin(corpus_dir)] if corpus_dir else [])
    return BrowserSession(allowed_origins=entries)
