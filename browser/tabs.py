"""The tabs of one browser context: which is active, their CDP sessions, tabs pages open."""

from __future__ import annotations

from playwright.async_api import BrowserContext, CDPSession, Page

from browser.executor import ActionFailed
from browser.popups import PopupWatcher


class Tabs:
    """`await Tabs.open(context)`; `page` is the active tab (the newest open one if it closed)."""

    def __init__(self, context: BrowserContext, watcher: PopupWatcher, page: Page) -> None:
        self.context = context
        self._watcher = watcher
        self._page = page
        self._cdp: dict[Page, CDPSession] = {}

    @classmethod
    async def open(cls, context: BrowserContext) -> Tabs:
        watcher = PopupWatcher()
        await watcher.install(context)
        return cls(context, watcher, watcher.track(await context.new_page()))

    @property
    def page(self) -> Page:
        if self._page.is_closed():
            open_pages = [p for p in self.context.pages if not p.is_closed()]
            if not open_pages:
                raise RuntimeError("every tab is closed")
            self._page = open_pages[-1]
        return self._page

    @property
    def pages(self) -> list[Page]:
        return self.context.pages

    async def session(self, page: Page) -> CDPSession:
        if page not in self._cdp:
            self._cdp[page] = await self.context.new_cdp_session(page)
        return self._cdp[page]

    async def new_tab(self) -> None:
        self._page = self._watcher.track(await self.context.new_page())

    async def focus(self, index: int) -> None:
        pages = self.context.pages
        if index >= len(pages):
            raise ActionFailed(f"there is no tab {index}; open tabs are 0..{len(pages) - 1}")
        self._page = pages[index]
        await self._page.bring_to_front()

    async def close_current(self) -> None:
        page = self.page
        await page.close()
        self._cdp.pop(page, None)
        remaining = self.context.pages
        if remaining:
            self._page = remaining[-1]
        else:
            await self.new_tab()

    async def adopt_popup(self, timeout_ms: int) -> str:
        """Make a tab the last action opened the active one; returns a note for the step."""
        popup = await self._watcher.adopt(self.page, timeout_ms)
        if popup is None:
            return ""
        if popup.url.startswith("chrome-error://"):
            await popup.close()  # its only page was refused: nothing to look at
            return "closed a new tab whose page was refused"
        self._page = popup
        return ""
