"""Page-level moves that need care: scrolling by a screen, and history that reports a dead end."""

from __future__ import annotations

from playwright.async_api import CDPSession, Page
from playwright.async_api import Error as PlaywrightError

from agents.web.executor import ActionFailed

# WebArena scrolls the window by one viewport height; report when nothing moved so the agent
# learns it is at the end instead of scrolling forever.
_SCROLL_JS = """(dir) => {
  const el = document.scrollingElement || document.documentElement;
  const before = el.scrollTop;
  window.scrollBy(0, dir * window.innerHeight);
  return [before, el.scrollTop];
}"""


async def scroll(page: Page, direction: str) -> str:
    """Scroll the window one screen up or down; returns a note when already at the end."""
    before, after = await page.evaluate(_SCROLL_JS, -1 if direction == "up" else 1)
    if before == after:
        return f"already at the {'top' if direction == 'up' else 'bottom'} of the page"
    return ""


async def go_history(page: Page, cdp: CDPSession, back: bool) -> None:
    """go_back / go_forward, refused with a reason when the tab has no such history entry."""
    history = await cdp.send("Page.getNavigationHistory")
    index, entries = history["currentIndex"], history["entries"]
    target = index - 1 if back else index + 1
    if not 0 <= target < len(entries):
        raise ActionFailed(f"there is no {'previous' if back else 'next'} page in this tab")
    try:
        if back:
            await page.go_back()
        else:
            await page.go_forward()
    except PlaywrightError as err:
        raise ActionFailed(f"could not go {'back' if back else 'forward'}: {err}") from err
