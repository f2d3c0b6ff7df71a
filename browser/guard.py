"""The origin guard on a browser context: every request is checked against the OriginPolicy."""

from __future__ import annotations

from playwright.async_api import BrowserContext, Route

from browser.origins import OriginPolicy


class RequestGuard:
    """Aborts requests to origins the policy refuses and remembers them for the step report."""

    def __init__(self, policy: OriginPolicy) -> None:
        self.policy = policy
        self._blocked: list[str] = []

    async def install(self, context: BrowserContext) -> None:
        await context.route("**/*", self._route)

    def take_blocked(self) -> list[str]:
        """The refused urls since the last call."""
        blocked, self._blocked = self._blocked, []
        return blocked

    async def _route(self, route: Route) -> None:
        url = route.request.url
        if self.policy.allows(url):
            await route.continue_()
        else:
            self._blocked.append(url)
            await route.abort("blockedbyclient")
