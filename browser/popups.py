"""Tabs a page opens by itself (target=_blank, window.open), adopted as the active tab per step."""

from __future__ import annotations

import asyncio
import time

from playwright.async_api import BrowserContext, Page
from playwright.async_api import Error as PlaywrightError

# Counts window.open calls so a step knows a popup is on its way even before Playwright reports
# it; without this the step could observe the old tab and the new one would appear later.
_COUNT_OPENS_JS = """(() => {
  const open = window.open;
  window.open = function (...args) {
    window.__webenvOpens = (window.__webenvOpens || 0) + 1;
    return open.apply(this, args);
  };
})();"""
_TAKE_COUNT_JS = (
    "() => { const n = window.__webenvOpens || 0; window.__webenvOpens = 0; return n; }"
)


class PopupWatcher:
    """Collects popups as they come; `adopt` hands over the newest one at the end of a step."""

    def __init__(self) -> None:
        self._popups: list[Page] = []

    async def install(self, context: BrowserContext) -> None:
        await context.add_init_script(_COUNT_OPENS_JS)

    def track(self, page: Page) -> Page:
        page.on("popup", self._on_popup)
        return page

    def _on_popup(self, popup: Page) -> None:
        self._popups.append(popup)

    async def adopt(self, page: Page, timeout_ms: int) -> Page | None:
        """The newest tab opened from `page` during this step (loaded), or None."""
        expected = await _take_open_count(page)
        deadline = time.monotonic() + timeout_ms / 1000
        while len(self._popups) < expected and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        popups, self._popups = self._popups, []
        for popup in popups:
            self.track(popup)
        alive = [p for p in popups if not p.is_closed()]
        if not alive:
            return None
        await alive[-1].wait_for_load_state("load")
        return alive[-1]


async def _take_open_count(page: Page) -> int:
    if page.is_closed():
        return 0
    try:
        return int(await page.evaluate(_TAKE_COUNT_JS))
    except PlaywrightError:
        # The action navigated this tab: the counter went with the old document.
        return 0
