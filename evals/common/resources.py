"""What one evaluation worker keeps between jobs: an event loop, a browser, local page servers,
its models, and data it has parsed.

Opened on first use and closed with the worker, so a run of many short episodes pays for
chromium and the page server once per worker, not once per episode.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from contextlib import ExitStack
from pathlib import Path
from typing import Any, TypeVar

from playwright.async_api import Browser, Playwright, async_playwright

from browser.chromium import launch_browser
from core.models import Models
from evals.common.static_server import serve_directory

T = TypeVar("T")


class WorkerResources:
    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._stack = ExitStack()
        self._playwright: Playwright | None = None
        self._browser: Browser | None = None
        self._served: dict[Path, str] = {}  # folder -> base url, for this worker's lifetime
        self._kept: dict[Any, Any] = {}
        self.models = Models()  # each spec loaded once per worker, for every job it runs

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run a coroutine on this worker's loop (its browser lives on that loop)."""
        return self.loop.run_until_complete(coro)

    async def browser(self) -> Browser:
        if self._browser is None or not self._browser.is_connected():
            if self._playwright is None:
                self._playwright = await async_playwright().start()
            self._browser = await launch_browser(self._playwright)
        return self._browser

    def serve(self, root: Path) -> str:
        """Base URL of `root` served on 127.0.0.1 by this worker (started on first use)."""
        if root not in self._served:
            self._served[root] = self._stack.enter_context(serve_directory(root))
        return self._served[root]

    def keep(self, key: Any, build: Callable[[], T]) -> T:
        """`build()`'s value, made once per worker (e.g. a data file it reads for many jobs)."""
        if key not in self._kept:
            self._kept[key] = build()
        return self._kept[key]

    def close(self) -> None:
        try:
            if self._browser is not None:
                self.run(self._browser.close())
            if self._playwright is not None:
                self.run(self._playwright.stop())
        finally:
            self._browser = self._playwright = None
            self._served.clear()
            self._stack.close()
            self.loop.close()
