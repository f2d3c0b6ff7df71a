"""Page-level moves that need care: scrolling by a screen, and history that reports a dead end."""

from __future__ import annotations

import logging
from urllib.parse import urljoin

from playwright.async_api import CDPSession, Page
from playwright.async_api import Error as PlaywrightError

from browser.executor import ActionFailed
from browser.origins import OriginPolicy

log = logging.getLogger(__name__)

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


async def goto(page: Page, url: str, policy: OriginPolicy) -> None:
    """Open `url` in `page` (relative to its current url), refused when the policy says no."""
    if "://" not in url and not url.startswith(("about:", "data:")):
        url = urljoin(page.url, url)  # "goto [/cart]" means this site's /cart
    reason = policy.check(url)
    if reason:
        raise ActionFailed(f"goto refused: {reason}")
    try:
        await page.goto(url)
    except PlaywrightError as err:
        raise ActionFailed(f"could not load {url}: {str(err).splitlines()[0]}") from err


async def go_history(page: Page, cdp: CDPSession, back: bool, policy: OriginPolicy) -> None:
    """go_back / go_forward, refused with a reason when the tab has no such history entry
    or the entry's origin is not allowed."""
    history = await cdp.send("Page.getNavigationHistory")
    index, entries = history["currentIndex"], history["entries"]
    target = index - 1 if back else index + 1
    if not 0 <= target < len(entries):
        raise ActionFailed(f"there is no {'previous' if back else 'next'} page in this tab")
    reason = policy.check(entries[target]["url"])
    if reason:
        raise ActionFailed(f"{'go_back' if back else 'go_forward'} refused: {reason}")
    try:
        if back:
            await page.go_back()
        else:
            await page.go_forward()
    except PlaywrightError as err:
        raise ActionFailed(
            f"could not go {'back' if back else 'forward'}: {str(err).splitlines()[0]}"
        ) from err


async def leave_error_page(
    page: Page, cdp: CDPSession, policy: OriginPolicy, *, navigation_blocked: bool
) -> bool:
    """After a refused navigation, go back to the latest allowed page of this tab (True if it
    did). The error page commits a moment after the request is aborted, so when the guard
    refused a main-frame navigation this waits for it first."""
    if navigation_blocked:
        try:
            await page.wait_for_url(lambda url: url.startswith("chrome-error://"), timeout=2000)
        except PlaywrightError:
            pass  # the refused navigation never replaced the page (e.g. it was a redirect hop)
    history = await cdp.send("Page.getNavigationHistory")
    index, entries = history["currentIndex"], history["entries"]
    current = entries[index]["url"]
    if not (page.url.startswith("chrome-error://") or policy.check(current)):
        return False
    for entry in reversed(entries[:index]):
        if not entry["url"].startswith("chrome-error://") and policy.allows(entry["url"]):
            try:
                await cdp.send("Page.navigateToHistoryEntry", {"entryId": entry["id"]})
                await page.wait_for_load_state("load")
            except PlaywrightError as err:
                log.info("could not return to %s: %s", entry["url"], err)
                return False
            return True
    return False
