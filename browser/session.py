"""The browser behind the research agent's tools: one guarded BrowserEnv, usable from sync code.

    session = BrowserSession(allowed_origins=["http://127.0.0.1:8000"])
    session.call("open", url="http://127.0.0.1:8000/")   # or `await session.acall(...)`
    session.allow_urls(["https://en.wikipedia.org/wiki/X"])  # e.g. this run's search results
    session.close()                                        # or `await session.aclose()`

The same BrowserEnv as the web agent (same observation, same actions, same origin guard), so the
tools see what the agent sees and are refused what it is refused: the allow-list is the only
way out, and it starts empty. Playwright's async API runs on a private event loop in a
background thread; `call` waits for it with a timeout and `acall` awaits the same work, so sync
and async graph runs both work. Operations: open(url), text(), tree(), click(element_id),
type(element_id, text, press_enter), follow_link(link). Each returns text: the observation
after it, with "Error: ..." or "Refused: ..." first when it failed; cut to `max_chars`.
"""

from __future__ import annotations

import asyncio
import atexit
import logging
import re
import threading
from collections.abc import Iterable
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any
from urllib.parse import urlsplit

from playwright.async_api import Error as PlaywrightError

from browser.chromium import BrowserUnavailable
from browser.config import EnvConfig, StepInfo
from browser.env import BrowserEnv
from browser.limits import Limits
from browser.observation import Observation
from browser.origins import OriginPolicy, is_internal_host, normalize_host, origin_of

log = logging.getLogger(__name__)
# The tools' own budget (the executor's tool-step limit) bounds them, not the episode limits.
UNLIMITED = Limits(max_steps=10**9, max_repeats=10**9, max_invalid=10**9)


def normalize_url(url: str) -> str:
    """Add https:// to a bare host such as 'example.com/page'."""
    url = url.strip()
    return url if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", url) else f"https://{url}"


def truncate(text: str, max_chars: int) -> str:
    if len(text) <= max_chars:
        return text
    return f"{text[:max_chars].rstrip()}\n…[truncated {len(text) - max_chars} more characters]"


class BrowserSession:
    """One lazily started guarded browser and the operations the tools call."""

    def __init__(
        self,
        *,
        allowed_origins: Iterable[str] = (),
        max_chars: int = 4000,
        timeout_s: float = 60.0,
        action_timeout_ms: int = 15_000,
    ):
        self.allowed = tuple(allowed_origins)
        OriginPolicy(self.allowed)  # a bad entry fails here, not at the first page
        self.max_chars = max_chars
        self.timeout_s = timeout_s
        self.action_timeout_ms = action_timeout_ms
        self._thread_lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._op_lock: asyncio.Lock | None = None  # lives on the background loop
        self._env: BrowserEnv | None = None

    # -- the allow-list ----------------------------------------------------------------------
    def allow(self, entries: Iterable[str]) -> None:
        """Allow more origins (OriginPolicy entries) from now on."""
        fresh = tuple(e for e in dict.fromkeys(entries) if e not in self.allowed)
        self.allowed += fresh
        if self._env is not None and fresh:
            self._env.allow(*fresh)

    def allow_urls(self, urls: Iterable[str]) -> None:
        """Allow the origins of these urls (search results); never a private address by this
        route: only --allow-origin can name one."""
        origins = []
        for url in urls:
            origin = origin_of(url)
            if origin and not is_internal_host(normalize_host(urlsplit(url).hostname or "")):
                origins.append(origin)
        self.allow(origins)

    def check(self, url: str) -> str | None:
        """The refusal message for `url`, or None when it may be opened."""
        reason = OriginPolicy(self.allowed).check(url)
        return None if reason is None else f"Refused: {reason}. Open an allowed page instead."

    # -- operations (run on the background loop) ---------------------------------------------
    async def _op(self, name: str, **kwargs: Any) -> str:
        if name == "open":
            url = normalize_url(str(kwargs["url"]))
            refusal = self.check(url)
            if refusal:
                return refusal  # before launching anything
            return await self._step(f"goto [{url}]")
        if name == "click":
            return await self._step(f"click [{_element_id(kwargs['element_id'])}]")
        if name == "type":
            enter = int(bool(kwargs.get("press_enter")))
            text = str(kwargs["text"])
            return await self._step(
                f"type [{_element_id(kwargs['element_id'])}] [{text}] [{enter}]"
            )
        if name == "follow_link":
            return await self._follow_link(str(kwargs["link"]))
        env = await self._ready()
        if name == "tree":
            return _report(await env.observe())
        if name == "text":
            return await _page_text(env)
        raise ValueError(f"unknown browser operation {name!r}")

    async def _step(self, action: str) -> str:
        env = await self._ready()
        observation, info, _ = await env.step(action)
        return _report(observation, info)

    async def _follow_link(self, link: str) -> str:
        env = await self._ready()
        seen = env.last_observation or await env.observe()
        wanted = " ".join(link.split()).strip("[]").lower()
        links = [n for n in seen.nodes.values() if n.role == "link"]
        for match in (
            lambda n: n.id == wanted,
            lambda n: n.name.lower() == wanted,
            lambda n: wanted in n.name.lower(),
        ):
            found = next((n for n in links if match(n)), None)
            if found is not None:
                return await self._step(f"click [{found.id}]")
        return f"Error: no link {link!r} on this page; read the links and their [ids] in the tree"

    async def _ready(self) -> BrowserEnv:
        """The session's environment, launching chromium on first use or after it died."""
        if self._env is not None and self._env.alive:
            return self._env
        if self._env is not None:
            log.warning("the browser page was closed or chromium exited; starting a new one")
            await self._env.close()
        config = EnvConfig(
            allowed_origins=self.allowed, limits=UNLIMITED, action_timeout_ms=self.action_timeout_ms
        )
        self._env = BrowserEnv(config)
        await self._env.reset("about:blank")
        atexit.register(self.close)
        return self._env

    async def _run(self, name: str, kwargs: dict[str, Any]) -> str:
        if self._op_lock is None:
            self._op_lock = asyncio.Lock()
        async with self._op_lock:  # one operation at a time on the one browser
            try:
                result = await self._op(name, **kwargs)
            except (PlaywrightError, BrowserUnavailable, RuntimeError, ValueError) as exc:
                message = str(exc).strip().splitlines()[0] if str(exc).strip() else repr(exc)
                log.warning("browser %s(%s) failed: %s", name, kwargs, message)
                return f"Error: browser {name} failed: {message}"
            return truncate(result, self.max_chars)

    # -- calling from sync and async code ----------------------------------------------------
    def _ensure_loop(self) -> asyncio.AbstractEventLoop:
        with self._thread_lock:
            if self._loop is None:
                self._loop = asyncio.new_event_loop()
                self._thread = threading.Thread(
                    target=self._loop.run_forever, name="browser-loop", daemon=True
                )
                self._thread.start()
            return self._loop

    def call(self, name: str, **kwargs: Any) -> str:
        future = asyncio.run_coroutine_threadsafe(self._run(name, kwargs), self._ensure_loop())
        try:
            return future.result(timeout=self.timeout_s)
        except FutureTimeout:
            future.cancel()
            log.warning("browser %s timed out after %.0fs", name, self.timeout_s)
            return f"Error: browser {name} timed out after {self.timeout_s:.0f}s"

    async def acall(self, name: str, **kwargs: Any) -> str:
        future = asyncio.run_coroutine_threadsafe(self._run(name, kwargs), self._ensure_loop())
        try:
            return await asyncio.wait_for(asyncio.wrap_future(future), self.timeout_s)
        except TimeoutError:
            log.warning("browser %s timed out after %.0fs", name, self.timeout_s)
            return f"Error: browser {name} timed out after {self.timeout_s:.0f}s"

    # -- lifecycle ---------------------------------------------------------------------------
    def close(self) -> None:
        """Close the browser and stop the background loop; safe to call twice."""
        with self._thread_lock:
            loop, thread = self._loop, self._thread
            self._loop = self._thread = None
        if loop is None or thread is None:
            return
        atexit.unregister(self.close)
        env, self._env = self._env, None
        if env is not None:
            future = asyncio.run_coroutine_threadsafe(env.close(), loop)
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


def _element_id(value: object) -> str:
    found = re.fullmatch(r"\s*\[?\s*(\d+)\s*\]?\s*", str(value))
    if not found:
        raise ValueError(f"element_id must be a number from the tree, got {value!r}")
    return found.group(1)


def _report(observation: Observation, info: StepInfo | None = None) -> str:
    """The observation, with what went wrong (or was blocked) first."""
    head = []
    if info is not None and not info.valid:
        head.append(f"Error: {info.reason}")
    if info is not None and info.note:
        head.append(f"Note: {info.note}")
    return "\n".join([*head, observation.text])


async def _page_text(env: BrowserEnv) -> str:
    page = env.page
    body = await page.inner_text("body") if await page.locator("body").count() else ""
    text = re.sub(r"\n{3,}", "\n\n", body).strip()
    return f"URL: {page.url}\nTitle: {await page.title()}\n\n{text or '(the page has no text)'}"
