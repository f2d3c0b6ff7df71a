"""Carrying out one parsed action in an episode: on an element of the last observation (click,
hover, type), or on the page and the tabs (press, scroll, goto, history, tab actions)."""

from __future__ import annotations

from playwright.async_api import Error as PlaywrightError

from browser import executor
from browser.actions import Action, ActionType
from browser.executor import ActionFailed, ElementTarget
from browser.navigation import go_history, goto, scroll
from browser.origins import OriginPolicy
from browser.tabs import Tabs

ON_ELEMENT = (ActionType.CLICK, ActionType.HOVER, ActionType.TYPE)


async def on_element(action: Action, target: ElementTarget, tabs: Tabs, timeout_ms: int) -> str:
    """Click, hover or type on the resolved element; returns a note for the agent."""
    if action.type is ActionType.CLICK:
        note = await executor.click(target, timeout_ms)
    elif action.type is ActionType.HOVER:
        await executor.hover(target, timeout_ms)
        note = ""
    else:
        note = await executor.type_text(target, action.text or "", action.press_enter, timeout_ms)
    await settle(tabs)
    return note


async def on_page(action: Action, tabs: Tabs, policy: OriginPolicy) -> str:
    """Actions on the page or the tabs rather than on one element."""
    kind, page = action.type, tabs.page
    if kind is ActionType.PRESS:
        try:
            await page.keyboard.press(action.text or "")
        except PlaywrightError as err:
            raise ActionFailed(f"cannot press {action.text!r}: {err}") from err
        await settle(tabs)
    elif kind is ActionType.SCROLL:
        return await scroll(page, action.text or "down")
    elif kind is ActionType.NEW_TAB:
        await tabs.new_tab()
    elif kind is ActionType.TAB_FOCUS:
        await tabs.focus(action.tab_index or 0)
    elif kind is ActionType.TAB_CLOSE:
        await tabs.close_current()
    elif kind is ActionType.GOTO:
        await goto(page, action.text or "", policy)
    elif kind in (ActionType.GO_BACK, ActionType.GO_FORWARD):
        await go_history(page, await tabs.session(page), kind is ActionType.GO_BACK, policy)
        await settle(tabs)
    return ""


async def settle(tabs: Tabs) -> None:
    """Let a navigation the action started finish loading on the active tab before observing."""
    try:
        await tabs.page.wait_for_load_state("load")
    except PlaywrightError as err:
        raise ActionFailed(f"the page did not finish loading: {err}") from err
