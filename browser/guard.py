"""The origin guard of a browser context: two layers over one OriginPolicy.

    guard = RequestGuard(policy)
    context = await browser.new_context(**await guard.context_options())
    await guard.install(context)        # ... guard.policy may be widened later; guard.close()

1. Routes on the context (every page, popup and frame): a refused request or websocket is
   aborted before any connection, and remembered so a step can say what was blocked.
2. The context's proxy (browser.proxy): every connection the browser makes goes through it,
   including what routes never see — redirect hops (Playwright calls no handler for them, even
   after a fulfilled 3xx, so fetching with redirects off and fulfilling the response let the
   next hop out unchecked), preconnects and websockets opened by workers. Each is checked
   against the same policy, with host names resolved and re-checked.
Service workers are blocked by a context option, as their requests bypass routing; channels
that need no proxy at all (WebRTC, WebTransport) are closed by the launch and removed from every
frame (browser.chromium).
"""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from playwright.async_api import BrowserContext, Route, WebSocketRoute
from playwright.async_api import Error as PlaywrightError

from browser.chromium import harden
from browser.origins import OriginPolicy, file_origin, origin_of
from browser.proxy import GuardProxy

log = logging.getLogger(__name__)
_ANY = re.compile(r".*")


class RequestGuard:
    """Refuses what `policy` refuses, at both layers; `take_blocked()` reports what it did."""

    def __init__(self, policy: OriginPolicy) -> None:
        self.policy = policy
        self.navigation_blocked = False  # a main-frame navigation was refused (since last take)
        self._blocked: list[str] = []  # by the routes: full urls
        self._connections: list[str] = []  # by the proxy: often just an origin (a tunnel)
        self._proxy = GuardProxy(lambda: self.policy, self._connections.append)

    async def context_options(self) -> dict[str, Any]:
        """Options to create the guarded context with (starts the proxy on first use)."""
        server = await self._proxy.start()
        return {"service_workers": "block", "proxy": {"server": server}}

    async def install(self, context: BrowserContext) -> None:
        await harden(context)
        await context.route(_ANY, self._route)
        await context.route_web_socket(_ANY, self._websocket)

    async def close(self) -> None:
        await self._proxy.close()

    def take_blocked(self) -> list[str]:
        """The refused urls since the last call (the routes' full urls first)."""
        blocked = list(dict.fromkeys(self._blocked + self._connections))
        self._blocked.clear()
        self._connections.clear()
        self.navigation_blocked = False
        return blocked

    def _refused(self, url: str) -> None:
        self._blocked.append(url)
        log.info("guard: refused %s", url)

    async def _route(self, route: Route) -> None:
        request = route.request
        reason = self.policy.check(request.url)
        if reason is None:
            await route.continue_()
            return
        self._refused(request.url)
        if request.is_navigation_request():
            try:
                self.navigation_blocked |= request.frame.parent_frame is None
            except PlaywrightError:
                pass  # a popup's first navigation: its frame does not exist yet
        await route.abort("blockedbyclient")

    async def _websocket(self, ws: WebSocketRoute) -> None:
        if self.policy.check(ws.url) is not None:
            self._refused(ws.url)
            await ws.close(code=1008, reason="origin not allowed")
            return
        ws.connect_to_server()


def episode_policy(allowed: tuple[str, ...], start_url: str) -> OriginPolicy:
    """`allowed` plus the start page's origin (a file start page: its folder)."""
    if start_url.lower().startswith("file:"):
        folder = Path(unquote(urlsplit(start_url).path)).parent
        return OriginPolicy(allowed + (file_origin(folder),))
    origin = origin_of(start_url)
    return OriginPolicy(allowed + ((origin,) if origin else ()))
