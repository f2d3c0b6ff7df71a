"""The browser tools of the research agent: thin LangChain tools over browser.BrowserSession.

    session = BrowserSession(allowed_origins=[...])
    tools = browser_tools(session)   # browser_open, browser_text, browser_tree,
                                     # browser_follow_link, browser_click, browser_type

Each tool has a sync `func` and an async `coroutine` over the same session, so a graph run with
`invoke` or `ainvoke` both work; every one returns text (failures and refusals included).
"""

from __future__ import annotations

from typing import Any

from langchain_core.tools import BaseTool, StructuredTool
from pydantic import Field, create_model

from browser.session import BrowserSession

_TREE = (
    " Returns the page as an accessibility tree: one element per line, [id] role 'name'; "
    "use the ids with browser_click and browser_type."
)
_ID = (int, Field(description="The [id] of the element in the tree."))
# name -> (session operation, description, arguments)
_SPECS: dict[str, tuple[str, str, dict[str, Any]]] = {
    "browser_open": ("open", "Open a URL in the browser." + _TREE,
                     {"url": (str, Field(description="The address to open."))}),
    "browser_text": ("text", "Read the current page as plain text.", {}),
    "browser_tree": ("tree", "Read the current page again." + _TREE, {}),
    "browser_follow_link": ("follow_link", "Follow a link on the current page.",
                            {"link": (str, Field(description="The link's [id] or text."))}),
    "browser_click": ("click", "Click the element with this [id] from the tree.",
                      {"element_id": _ID}),
    "browser_type": ("type", "Type text into the input with this [id].", {
        "element_id": _ID, "text": (str, Field(description="What to type.")),
        "press_enter": (bool, Field(default=False, description="Press Enter after typing.")),
    }),
}  # fmt: skip


# The tools that read or act on an open page (all but browser_open): offered once one is open.
PAGE_TOOLS = frozenset(name for name in _SPECS if name != "browser_open")
_FAILED = ("Error", "Refused")


def page_opened(results: list[tuple[str, str]]) -> bool:
    """Did one of these (tool name, output) results open a page?"""
    return any(name == "browser_open" and not out.startswith(_FAILED) for name, out in results)


def browser_tools(session: BrowserSession) -> list[BaseTool]:
    """The six browser tools, sharing `session`'s browser."""
    return [_tool(session, name, *spec) for name, spec in _SPECS.items()]


def _tool(
    session: BrowserSession, name: str, op: str, description: str, args: dict[str, Any]
) -> BaseTool:
    def func(**kwargs: Any) -> str:
        return session.call(op, **kwargs)

    async def coroutine(**kwargs: Any) -> str:
        return await session.acall(op, **kwargs)

    return StructuredTool(
        name=name,
        description=description,
        args_schema=create_model(f"{name}_args", **args),
        func=func,
        coroutine=coroutine,
    )
