"""Playwright browser tools on Debian's chromium, usable from sync and async graph runs.

    session = BrowserSession(allowed_origins=["http://127.0.0.1:8000"])  # None = any origin
    tools = session.tools()   # browser_open, browser_text, browser_tree, browser_follow_link,
                              # browser_click, browser_type
    ...
    session.close()           # or `await session.aclose()`

One chromium page per session, started on first use. Playwright's async API runs on a private
event loop in a background thread; each tool's sync `func` waits for it with a timeout and its
async `coroutine` awaits the same work, so a graph run with `invoke` or `ainvoke` both work.
Failures (network, timeouts, unknown element ids, refused origins) come back as "Error: ..."
strings; observations are cut to `max_chars`.
"""

from __future__ import annotations

import asyncio
import atexit
import logging
import threading
from collections.abc import Awaitable, Callable, Iterable
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

from langchain_core.tools import BaseTool, StructuredTool
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page, Route, async_playwright

from browser import page as bp
from browser.chromium import BrowserUnavailable, launch_browser

log = logging.getLogger(__name__)

Op = Callable[..., Awaitable[str]]


class BrowserSession:
    """One lazily started chromium page and the tools that drive it."""

    def __init__(
        self,
        *,
        allowed_origins: Iterable[str] | None = None,
        max_chars: int = 4000,
        timeout_s: float = 60.0,
        action_timeout_ms: int = 15_000,
    ):
        self.allowed = (
            None if allowed_origins is None else {bp.origin_of(o) for o in allowed_origins}
        )
        self.max_chars = max_chars
        self.timeout_s = timeout_s
        self.action_timeout_ms = action_timeout_ms
        self._thread_lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        # Everything below lives on the background loop and is only touched from it.
        self._op_lock: asyncio.Lock | None = None
        self._pw: Any = None
        self._browser: Any = None
        self._page: Page | None = None
        self._refused: str | None = None

    # -- the tools ---------------------------------------------------------------------------

    def tools(self) -> list[BaseTool]:
        """The six browser tools, sharing this session's page."""
        specs: list[tuple[str, Op, str]] = [
            ("browser_open", self._open, "Open a URL in the browser. Returns the page's "
             "accessibility tree; [n] marks elements you can click or type into."),
            ("browser_text", self._text, "Read the current page as plain text."),
            ("browser_tree", self._tree, "Read the current page as an accessibility tree with "
             "[n] ids for links, buttons and inputs."),
            ("browser_follow_link", self._follow_link, "Follow a link on the current page, "
             "given its [n] id or its visible text."),
            ("browser_click", self._click, "Click the element with id [n] from the tree."),
            ("browser_type", self._type, "Type text into the input with id [n]; set "
             "press_enter to submit."),
        ]  # fmt: skip
        return [self._tool(name, op, description) for name, op, description in specs]

    def _tool(self, name: str, op: Op, description: str) -> BaseTool:
        schema = StructuredTool.from_function(coroutine=op, name=name, description=description)

        def func(**kwargs: Any) -> str:
            return self._call_sync(name, op, kwargs)

        async def coroutine(**kwargs: Any) -> str:
            return await self._call_async(name, op, kwargs)

        return StructuredTool(
            name=name,
            description=description,
            args_schema=schema.args_schema,
            func=func,
            coroutine=coroutine,
        )

    # -- page operations (run on the background loop) ----------------------------------------

    async def _open(self, url: str) -> str:
        url = bp.normalize_url(url)
        refusal = self._check_url(url)
        if refusal:
            return refusal  # before launching anything
        page = await self._ready()
        try:
            await page.goto(url, wait_until="load")
        except PlaywrightError as exc:
            # After a failed load chromium shows its own error page; a goto issued while that
            # is still loading gets "interrupted". One retry, once it has settled, fixes that.
            if "interrupted by another navigation" not in str(exc):
                raise
            await page.wait_for_load_state("load")
            await page.goto(url, wait_until="load")
        return await bp.page_tree(page)

    async def _text(self) -> str:
        return await bp.page_text(await self._ready())

    async def _tree(self) -> str:
        return await bp.page_tree(await self._ready())

    async def _follow_link(self, link: str) -> str:
        page = await self._ready()
        target = await bp.find_link(page, link)
        href = await target.evaluate("a => a.href || ''")
        refusal = self._check_url(href) if href.startswith(("http:", "https:", "file:")) else None
        if refusal:
            return refusal
        await target.evaluate("a => a.removeAttribute('target')")  # keep it in this one page
        await target.click()
        return await self._observe_after_action(page)

    async def _click(self, element_id: int) -> str:
        page = await self._ready()
        await (await bp.element(page, element_id)).click()
        return await self._observe_after_action(page)

    async def _type(self, element_id: int, text: str, press_enter: bool = False) -> str:
        page = await self._ready()
        target = await bp.element(page, element_id)
        await target.fill(text)
        if press_enter:
            await target.press("Enter")
        return await self._observe_after_action(page)

    async def _observe_after_action(self, page: Page) -> str:
        """The tree once a navigation or script started by the action has finished."""
        await page.wait_for_load_state("load")
        await page.wait_for_timeout(100)
        return await bp.page_tree(page)

    # -- origins -----------------------------------------------------------------------------

    def _check_url(self, url: str) -> str | None:
        """A refusal message when `url` may not be opened, else None."""
        if not url.startswith(("http://", "https://")):
            return f"Refused: only http(s) pages can be opened, not {url!r}."
        if self.allowed is not None and bp.origin_of(url) not in self.allowed:
            return (
                f"Refused: {url} is outside the allowed origins "
                f"({', '.join(sorted(self.allowed))}). Open a page on an allowed site instead."
            )
        return None

    async def _guard_navigation(self, route: Route) -> None:
        """Abort main-frame navigations (redirects, scripts, forms) to a refused origin."""
        request = route.request
        main_frame = self._page.main_frame if self._page is not None else None
        if request.is_navigation_request() and request.frame == main_frame:
            refusal = self._check_url(request.url)
            if refusal:
                self._refused = refusal
                await route.abort("blockedbyclient")
                return
        await route.continue_()

    # -- lifecycle ---------------------------------------------------------------------------

    async def _ready(self) -> Page:
        """The session's page, launching chromium on first use or after it died."""
        if self._page is not None:
            if not self._page.is_closed() and self._browser.is_connected():
                return self._page
            log.warning("the browser page was closed or chromium exited; starting a new one")
            await self._shutdown()
        self._pw = await async_playwright().start()
        self._browser = await launch_browser(self._pw)
        context = await self._browser.new_context()
        context.set_default_timeout(self.action_timeout_ms)
        self._page = await context.new_page()
        if self.allowed is not None:
            await self._page.route("**/*", self._guard_navigation)
        atexit.register(self.close)
        return self._page

    async def _run_op(self, name: str, op: Op, kwargs: dict[str, Any]) -> str:
        if self._op_lock is None:
            self._op_lock = asyncio.Lock()
        async with self._op_lock:  # one action at a time on the one page
            self._refused = None
            try:
                result = await op(**kwargs)
            except (PlaywrightError, bp.NotOnPage, BrowserUnavailable) as exc:
                message = self._refused or str(exc).strip().splitlines()[0]
                log.warning("%s(%s) failed: %s", name, kwargs, message)
                return message if self._refused else f"Error: {name} failed: {message}"
            if self._refused:
                result = f"{self._refused}\n\n{result}"
            return bp.truncate(result, self.max_chars)

    def _ensure_loop(self) -> asyncio.AbstractEventLoop:
        with self._thread_lock:
            if self._loop is None:
                self._loop = asyncio.new_event_loop()
                self._thread = threading.Thread(
                    target=self._loop.run_forever, name="browser-loop", daemon=True
                )
                self._thread.start()
            return self._loop

    def _call_sync(self, name: str, op: Op, kwargs: dict[str, Any]) -> str:
        future = asyncio.run_coroutine_threadsafe(
            self._run_op(name, op, kwargs), self._ensure_loop()
        )
        try:
            return future.result(timeout=self.timeout_s)
        except FutureTimeout:
            future.cancel()
            log.warning("%s timed out after %.0fs", name, self.timeout_s)
            return f"Error: {name} timed out after {self.timeout_s:.0f}s"

    async def _call_async(self, name: str, op: Op, kwargs: dict[str, Any]) -> str:
        future = asyncio.run_coroutine_threadsafe(
            self._run_op(name, op, kwargs), self._ensure_loop()
        )
        try:
            return await asyncio.wait_for(asyncio.wrap_future(future), self.timeout_s)
        except TimeoutError:
            log.warning("%s timed out after %.0fs", name, self.timeout_s)
            return f"Error: {name} timed out after {self.timeout_s:.0f}s"

    async def _shutdown(self) -> None:
        page, browser, pw = self._page, self._browser, self._pw
        self._page = self._browser = self._pw = None
        try:
            if page is not None and not page.is_closed():
                await page.context.close()
            if browser is not None:
                await browser.close()
        except PlaywrightError as exc:  # chromium already gone: nothing left to close
            log.info("browser already closed: %s", exc)
        if pw is not None:
            await pw.stop()

    def close(self) -> None:
        """Close the browser and stop the background loop; safe to call twice."""
        with self._thread_lock:
            loop, thread = self._loop, self._thread
            self._loop = self._thread = None
        if loop is None or thread is None:
            return
        atexit.unregister(self.close)
        future = asyncio.run_coroutine_threadsafe(self._shutdown(), loop)
        try:
            future.result(timeout=20)
        except (FutureTimeout, PlaywrightError) as exc:
            log.warning("closing the browser failed: %s", exc)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=10)
        if not thread.is_alive():
            loop.close()
        self._op_lock = None

    async def aclose(self) -> None:
        """`close()` without blocking the caller's event loop."""
        await asyncio.to_thread(self.close)

    def __enter__(self) -> BrowserSession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
