"""Carry out element actions (click, hover, type) on the DOM node behind an observation id."""

from __future__ import annotations

from collections.abc import Awaitable

from playwright.async_api import CDPSession, Locator, Page
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeoutError

from browser.observation import Node

_TAG_ATTR = "data-webenv-target"
# Runs on the CDP object of the node: text nodes act through their parent element. Only one
# element carries the tag at a time, so a stale tag can never be acted on by mistake.
_TAG_JS = f"""function(tag) {{
  document.querySelectorAll('[{_TAG_ATTR}]').forEach(e => e.removeAttribute('{_TAG_ATTR}'));
  const el = this.nodeType === 1 ? this : this.parentElement;
  if (!el) return null;
  el.setAttribute('{_TAG_ATTR}', tag);
  const role = el.getAttribute('role') || '';
  return {{tag: el.tagName.toLowerCase(), type: (el.type || '').toLowerCase(), role: role,
          editable: el.isContentEditable,
          opensTab: !!el.closest('a[target]') &&
                    !['', '_self', '_parent', '_top'].includes(el.closest('a[target]').target)}};
}}"""
_TEXT_INPUT_TYPES = ("", "text", "search", "email", "password", "url", "tel", "number", "date",
                     "datetime-local", "month", "time", "week")  # fmt: skip
_TEXT_ROLES = ("textbox", "searchbox", "combobox", "spinbutton")


class ActionFailed(Exception):
    """The action was well formed but could not be carried out; the message says why."""


class ElementTarget:
    """The element behind observation id `node.id`, tagged in the DOM for Playwright locators."""

    def __init__(self, page: Page, locator: Locator, node: Node, info: dict[str, object]):
        self.page = page
        self.locator = locator
        self.node = node
        self.info = info

    @property
    def is_select(self) -> bool:
        return self.info.get("tag") == "select"

    @property
    def accepts_text(self) -> bool:
        tag, kind = self.info.get("tag"), self.info.get("type")
        return (
            tag == "textarea"
            or (tag == "input" and kind in _TEXT_INPUT_TYPES)
            or bool(self.info.get("editable"))
            or self.info.get("role") in _TEXT_ROLES
            or self.node.role in _TEXT_ROLES
        )


async def resolve(page: Page, cdp: CDPSession, node: Node, serial: int) -> ElementTarget:
    """Find the live DOM element for `node` or raise ActionFailed saying why not."""
    if node.backend_node_id is None:
        raise ActionFailed(f"[{node.id}] {node.line} has no DOM element to act on")
    try:
        resolved = await cdp.send("DOM.resolveNode", {"backendNodeId": node.backend_node_id})
        tag = f"{serial}"
        result = await cdp.send(
            "Runtime.callFunctionOn",
            {
                "objectId": resolved["object"]["objectId"],
                "functionDeclaration": _TAG_JS,
                "arguments": [{"value": tag}],
                "returnByValue": True,
            },
        )
    except PlaywrightError as err:
        raise ActionFailed(
            f"[{node.id}] is no longer on the page (it changed since the observation): "
            f"{_first_line(str(err))}"
        ) from err
    info = (result.get("result") or {}).get("value")
    if not info:
        raise ActionFailed(f"[{node.id}] {node.line} is not inside an element")
    return ElementTarget(page, page.locator(f'[{_TAG_ATTR}="{tag}"]'), node, info)


async def click(target: ElementTarget, timeout_ms: int) -> str:
    """Click like a user; an <option> (whose native popup a headless click cannot drive) is
    chosen in its <select> instead. Returns a note for the step record."""
    if target.info.get("tag") == "option":
        label = await target.locator.evaluate("o => o.label")
        select = target.locator.locator("xpath=ancestor::select[1]")
        await _guard(select.select_option(label=label, timeout=timeout_ms), target, "select")
        return f"selected option {label!r}"
    if target.info.get("opensTab"):
        # Wait for the new tab here: it arrives a moment after the click, and the step must
        # observe it rather than a stale tab.
        try:
            async with target.page.expect_popup(timeout=timeout_ms):
                await _guard(target.locator.click(timeout=timeout_ms), target, "click")
        except PlaywrightTimeoutError:
            return "clicked; the link names a new tab but none opened"
        return "opened a new tab"
    await _guard(target.locator.click(timeout=timeout_ms), target, "click")
    return ""


async def hover(target: ElementTarget, timeout_ms: int) -> None:
    await _guard(target.locator.hover(timeout=timeout_ms), target, "hover over")


async def type_text(target: ElementTarget, text: str, press_enter: bool, timeout_ms: int) -> str:
    """Replace the field's content with `text` (a <select> picks the option with that label).

    Returns a note for the step record. Typing replaces rather than appends (unlike WebArena)
    because a retried `type` should not double the text.
    """
    if target.is_select:
        return await _select_option(target, text, timeout_ms)
    if not target.accepts_text:
        raise ActionFailed(
            f"[{target.node.id}] {target.node.line} is not a text field; click it instead, or "
            "type into a textbox"
        )
    await _guard(target.locator.click(timeout=timeout_ms), target, "focus")
    await target.page.keyboard.press("ControlOrMeta+a")
    if text:
        await target.page.keyboard.type(text)
    else:
        await target.page.keyboard.press("Delete")
    if press_enter:
        await target.page.keyboard.press("Enter")
    return ""


async def _select_option(target: ElementTarget, text: str, timeout_ms: int) -> str:
    labels = await target.locator.evaluate("el => Array.from(el.options).map(o => o.label)")
    wanted = next((lab for lab in labels if lab.strip() == text.strip()), None)
    if wanted is None:
        wanted = next((lab for lab in labels if lab.strip().lower() == text.strip().lower()), None)
    if wanted is None:
        raise ActionFailed(
            f"[{target.node.id}] has no option {text!r}; options: {', '.join(map(repr, labels))}"
        )
    await _guard(target.locator.select_option(label=wanted, timeout=timeout_ms), target, "select")
    return f"selected option {wanted!r}"


async def _guard(awaitable: Awaitable[object], target: ElementTarget, verb: str) -> None:
    """Turn Playwright's long timeout messages into one actionable reason."""
    try:
        await awaitable
    except PlaywrightError as err:
        raise ActionFailed(
            f"could not {verb} [{target.node.id}] {target.node.line}: {_explain(str(err))}"
        ) from err


def _explain(message: str) -> str:
    """The telling line of a Playwright error: what intercepts or why it is not actionable."""
    lines = [ln.strip(" -") for ln in message.splitlines() if ln.strip()]
    for needle in (
        "intercepts pointer events",
        "not visible",
        "not enabled",
        "not stable",
        "detached",
        "outside of the viewport",
        "not attached",
    ):
        for line in reversed(lines):
            if needle in line:
                return line
    return _first_line(message)


def _first_line(message: str) -> str:
    return message.strip().splitlines()[0] if message.strip() else "unknown error"
