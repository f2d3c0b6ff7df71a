"""The observation: URL, tabs and Chromium's accessibility tree as `[id] role 'name'` lines."""

from __future__ import annotations

import base64
from dataclasses import dataclass, field, replace
from typing import Any

from playwright.async_api import CDPSession, Page
from playwright.async_api import Error as PlaywrightError

# Properties WebArena leaves out of the tree: they are noise for choosing an action.
IGNORED_PROPERTIES = ("focusable", "editable", "readonly", "level", "settable", "multiline",
                      "invalid", "hiddenRoot", "url")  # fmt: skip
# Nameless nodes of these roles carry no information of their own; their children still show.
_EMPTY_ROLES = ("generic", "img", "list", "strong", "paragraph", "banner", "navigation",
                "Section", "LabelText", "Legend", "listitem", "none", "group", "Canvas",
                "emphasis", "Abbr", "time", "superscript", "subscript")  # fmt: skip
_SKIP_ROLES = ("InlineTextBox", "LineBreak")
# Fields that take typed text or a choice. One without an accessible name (an <input> whose
# label is a plain text before it, not a <label for>) shows that text as `label:`; otherwise
# two nameless boxes under 'Username' and 'Password' read the same to the model.
_FIELD_ROLES = ("textbox", "searchbox", "combobox", "spinbutton", "listbox")
LABEL_CHARS = 30  # longer text before a field is a sentence, not its label


@dataclass(frozen=True)
class Node:
    """One element the agent can address: its id in the tree and the DOM node behind it."""

    id: str
    role: str
    name: str
    backend_node_id: int | None
    line: str  # "button 'Submit'" plus properties, without the id and indentation


@dataclass(frozen=True)
class TabInfo:
    index: int
    title: str
    url: str
    active: bool


@dataclass
class Observation:
    """What the agent sees after each step. `nodes` resolves the ids printed in `tree`."""

    url: str
    tabs: list[TabInfo]
    tree: str
    nodes: dict[str, Node] = field(default_factory=dict)
    screenshot: bytes | None = None
    viewport_only: bool = False

    @property
    def text(self) -> str:
        """The full observation as the agent's prompt shows it (WebArena's layout)."""
        tabs = " | ".join(
            f"Tab {t.index}{' (current)' if t.active else ''}: {t.title}" for t in self.tabs
        )
        return f"{tabs}\nURL: {self.url}\n{self.tree}"

    def summary(self, max_chars: int = 2000) -> str:
        """The observation text cut to `max_chars` (kept in trajectories)."""
        text = self.text
        return text if len(text) <= max_chars else text[:max_chars] + "\n…"

    def screenshot_b64(self) -> str | None:
        return base64.b64encode(self.screenshot).decode() if self.screenshot else None


def render_tree(
    ax_nodes: list[dict[str, Any]], visible: set[int] | None = None
) -> tuple[str, dict[str, Node]]:
    """Render CDP `Accessibility.getFullAXTree` nodes as indented `[id] role 'name'` lines.

    `visible`, when given, keeps only nodes whose backend DOM node is in it (viewport mode);
    a node left out still lets its children through, one level up.
    """
    by_id = {n["nodeId"]: n for n in ax_nodes}
    if not ax_nodes:
        return "", {}
    lines: list[str] = []
    nodes: dict[str, Node] = {}
    previous: tuple[int, Node] | None = None  # the last printed node and its depth
    # Iterative depth-first walk: deep pages would overflow Python's recursion limit.
    root = ax_nodes[0]["nodeId"]
    # (AX node id, depth, name of the nearest printed ancestor below the root)
    stack: list[tuple[str, int, str]] = [(root, 0, "")]
    while stack:
        node_id, depth, ancestor = stack.pop()
        ax = by_id.get(node_id)
        if ax is None:
            continue
        node = _node(ax)
        # The root stays in viewport mode: it names the page, and its box is the first screen.
        in_view = visible is None or node_id == root or (node and node.backend_node_id in visible)
        shown = node is not None and bool(in_view)
        if shown and node is not None:
            # A StaticText inside an element that already carries its text (a button's label)
            # says nothing new. WebArena drops any text seen in the last 3 lines instead, which
            # also loses a link whose word appears in the sentence above it.
            if node.role == "StaticText" and ancestor and node.name in ancestor:
                shown = False
            else:
                node = _labelled(node, previous, depth)
                lines.append("\t" * depth + f"[{node.id}] {node.line}")
                nodes[node.id] = node
                previous = (depth, node)
                if node_id != root:
                    ancestor = node.name
        child_depth = depth + 1 if shown else depth
        for child in reversed(ax.get("childIds", [])):
            stack.append((child, child_depth, ancestor))
    return "\n".join(lines), nodes


def _labelled(node: Node, previous: tuple[int, Node] | None, depth: int) -> Node:
    """A nameless field right after a short text beside it (same depth) shows it as `label:`."""
    if node.name or node.role not in _FIELD_ROLES or previous is None:
        return node
    before_depth, before = previous
    text = before.name
    if before_depth != depth or before.role != "StaticText" or len(text) > LABEL_CHARS:
        return node
    if not text[:1].isalnum() or text[-1:] in ".!?":  # a sentence or its tail, not a label
        return node
    role_and_name = f"{node.role} ''"
    rest = node.line.removeprefix(role_and_name)
    return replace(node, line=f"{role_and_name} label: {text!r}{rest}")


def _node(ax: dict[str, Any]) -> Node | None:
    """The printable node, or None for ignored, structural or empty nodes."""
    if ax.get("ignored"):
        return None
    role = (ax.get("role") or {}).get("value", "")
    name = str((ax.get("name") or {}).get("value", "")).strip()
    if not role or role in _SKIP_ROLES:
        return None
    props = []
    for prop in ax.get("properties") or []:
        value = (prop.get("value") or {}).get("value")
        if prop.get("name") in IGNORED_PROPERTIES or value in (None, "", False, "false"):
            continue
        props.append(f"{prop['name']}: {value}")
    if not name and (role in _EMPTY_ROLES and not props or role == "StaticText"):
        return None
    backend_id = ax.get("backendDOMNodeId")
    if backend_id is None:
        return None  # nothing in the DOM to act on; its text is in its parent's name
    line = f"{role} {name!r}" + (" " + " ".join(props) if props else "")
    # The DOM node's backend id, not the AX node id: it stays the same for an element across
    # observations, so "[14]" names one button for the whole episode.
    return Node(str(backend_id), role, name, backend_id, line)


async def fetch_ax_nodes(cdp: CDPSession) -> list[dict[str, Any]]:
    """The main frame's full accessibility tree (iframes are not descended into)."""
    result = await cdp.send("Accessibility.getFullAXTree")
    return list(result.get("nodes", []))


async def viewport_node_ids(cdp: CDPSession, width: int, height: int) -> set[int]:
    """Backend ids of DOM nodes whose layout box intersects the current viewport.

    One DOMSnapshot call gives every box at once; asking per node would cost a round trip each.
    """
    snap = await cdp.send("DOMSnapshot.captureSnapshot", {"computedStyles": []})
    doc = snap["documents"][0]
    backend_ids = doc["nodes"]["backendNodeId"]
    left, top = doc.get("scrollOffsetX", 0), doc.get("scrollOffsetY", 0)
    right, bottom = left + width, top + height
    visible: set[int] = set()
    for node_index, (x, y, w, h) in zip(
        doc["layout"]["nodeIndex"], doc["layout"]["bounds"], strict=True
    ):
        if w > 0 and h > 0 and x < right and x + w > left and y < bottom and y + h > top:
            visible.add(backend_ids[node_index])
    return visible


async def observe_page(
    page: Page,
    cdp: CDPSession,
    pages: list[Page],
    viewport: tuple[int, int] | None = None,
    screenshot: bool = False,
) -> Observation:
    """The observation of `page` (one of the open `pages`); `viewport` = (width, height) keeps
    only what is on the first screen."""
    try:
        ax_nodes = await fetch_ax_nodes(cdp)
    except PlaywrightError:
        # A navigation replaced the document mid-call; once loaded the tree is stable.
        await page.wait_for_load_state("load")
        ax_nodes = await fetch_ax_nodes(cdp)
    visible = await viewport_node_ids(cdp, *viewport) if viewport else None
    tree, nodes = render_tree(ax_nodes, visible)
    tabs = [TabInfo(i, await p.title(), p.url, p is page) for i, p in enumerate(pages)]
    shot = await page.screenshot(type="png") if screenshot else None
    return Observation(page.url, tabs, tree, nodes, shot, viewport is not None)
