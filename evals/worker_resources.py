"""What one evaluation worker keeps between jobs: an event loop, a browser, a MiniWoB server.

Opened on first use and closed with the worker, so a run of many short episodes pays for
chromium and the page server once per worker, not once per episode.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from contextlib import ExitStack
from typing import Any, TypeVar

from playwright.async_api import Browser, Playwright, async_playwright

from browser.chromium import launch_browser
from evals.static_server import serve_directory

T = TypeVar("T")


class WorkerResources:
    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._stack = ExitStack()
        self._playwright: Playwright | None = None
        self._browser: Browser | None = None
        self._miniwob_url: str | None = None

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run a coroutine on this worker's loop (its browser lives on that loop)."""
        return self.loop.run_until_complete(coro)

    async def browser(self) -> Browser:
        if self._browser is None or not self._browser.is_connected():
            if self._playwright is None:
                self._playwright = await async_playwright().start()
            self._browser = await launch_browser(self._playwright)
        return self._browser

    def miniwob_url(self) -> str:
        """Base URL of the MiniWoB++ task pages, served on 127.0.0.1 by this worker."""
        if self._miniwob_url is None:
            from evals.miniwob import miniwob_html_dir

            self._miniwob_url = self._stack.enter_context(serve_directory(miniwob_html_dir()))
        return self._miniwob_url

    def close(self) -> None:
        try:
            if self._browser is not None:
                self.run(self._browser.close())
            if self._playwright is not None:
                self.run(self._playwright.stop())
        finally:
            self._browser = self._playwright = None
            self._stack.close()
            self.loop.close()
