"""BrowserEnv: a Playwright browser the agent drives with WebArena actions, one step at a time."""

from __future__ import annotations

import time
from dataclasses import replace
from types import TracebackType

from playwright.async_api import (
    Browser,
    BrowserContext,
    CDPSession,
    Page,
    Playwright,
    async_playwright,
)
from playwright.async_api import Error as PlaywrightError

from browser import executor, perform
from browser.actions import Action, ActionParseError, ActionType, parse_action
from browser.chromium import launch_browser
from browser.config import EnvConfig, StepInfo
from browser.executor import ActionFailed
from browser.guard import RequestGuard, episode_policy
from browser.limits import limit_reason
from browser.navigation import leave_error_page
from browser.observation import Observation, observe_page
from browser.origins import OriginPolicy
from browser.tabs import Tabs
from browser.trajectory import TrajectoryStep

__all__ = ["BrowserEnv", "EnvConfig", "EpisodeOver", "StepInfo"]


class EpisodeOver(RuntimeError):
    """step() after the episode ended (stop, or a limit); call reset() first."""


class BrowserEnv:
    """`async with BrowserEnv(config) as env: obs = await env.reset(url); await env.step(...)`.

    Pass `browser=` to share one chromium between environments (the env then never closes it).
    """

    def __init__(self, config: EnvConfig | None = None, *, browser: Browser | None = None):
        self.config = config or EnvConfig()
        self.policy = OriginPolicy(self.config.allowed_origins)  # widened per episode by reset
        self.trajectory: list[TrajectoryStep] = []
        self.done_reason: str | None = None
        self.answer: str | None = None
        self._browser = browser
        self._owns_browser = browser is None
        self._playwright: Playwright | None = None
        self._context: BrowserContext | None = None
        self._tabs: Tabs | None = None
        self._last: Observation | None = None
        self._guard: RequestGuard | None = None
        self._serial = 0

    async def __aenter__(self) -> BrowserEnv:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    async def start(self) -> None:
        if self._browser is None:
            self._playwright = await async_playwright().start()
            self._browser = await launch_browser(self._playwright)

    async def close(self) -> None:
        if self._context is not None:
            await self._context.close()
            self._context, self._tabs = None, None
        if self._guard is not None:
            await self._guard.close()
            self._guard = None
        if self._owns_browser and self._browser is not None:
            await self._browser.close()
            self._browser = None
        if self._playwright is not None:
            await self._playwright.stop()
            self._playwright = None

    @property
    def done(self) -> bool:
        return self.done_reason is not None

    @property
    def alive(self) -> bool:
        """Reset, and its chromium still running."""
        return self._tabs is not None and self._browser is not None and self._browser.is_connected()

    def allow(self, *entries: str) -> None:
        """Allow more origins from now on, this episode and later ones (e.g. search results)."""
        fresh = tuple(e for e in entries if e not in self.config.allowed_origins)
        self.config = replace(self.config, allowed_origins=self.config.allowed_origins + fresh)
        self.policy = self.policy.with_entries(*fresh)
        if self._guard is not None:
            self._guard.policy = self.policy

    def take_blocked(self) -> list[str]:
        """Urls the guard refused since the last step (e.g. while the start page loaded)."""
        return self._guard.take_blocked() if self._guard is not None else []

    @property
    def page(self) -> Page:
        """The active tab (falls back to the newest open one if the active tab closed itself)."""
        if self._tabs is None:
            raise RuntimeError("the environment has no page yet: call reset() first")
        return self._tabs.page

    async def reset(self, start_url: str = "about:blank") -> Observation:
        """A fresh browser context (no cookies, one tab) at `start_url`; clears the trajectory.

        The start page's origin (or, for a file, its folder) is allowed for this episode on top
        of `config.allowed_origins`; nothing else is, not even other ports of the same host.
        """
        self.policy = episode_policy(self.config.allowed_origins, start_url)
        if self._browser is None:
            await self.start()
        assert self._browser is not None
        if self._context is not None:
            await self._context.close()
        self.trajectory, self.done_reason, self.answer = [], None, None
        cfg = self.config
        if self._guard is None:
            self._guard = RequestGuard(self.policy)
        self._guard.policy = self.policy
        self._guard.take_blocked()
        self._context = await self._browser.new_context(
            viewport={"width": cfg.viewport_width, "height": cfg.viewport_height},
            **await self._guard.context_options(),
        )
        self._context.set_default_navigation_timeout(cfg.navigation_timeout_ms)
        await self._guard.install(self._context)
        self._tabs = await Tabs.open(self._context)
        if start_url != "about:blank":
            try:
                await self._tabs.page.goto(start_url)
            except PlaywrightError as err:
                first = str(err).splitlines()[0]
                raise RuntimeError(f"cannot load the start page {start_url}: {first}") from err
        return await self.observe()

    async def observe(self) -> Observation:
        """Observe the active tab now (also what reset/step return)."""
        page, cfg = self.page, self.config
        assert self._tabs is not None
        viewport = (cfg.viewport_width, cfg.viewport_height) if cfg.viewport_only else None
        self._last = await observe_page(
            page, await self._session(page), self._tabs.pages, viewport, cfg.screenshot
        )
        return self._last

    @property
    def last_observation(self) -> Observation | None:
        """What the latest reset/step/observe returned (None before the first)."""
        return self._last

    async def step(
        self, action_text: str, *, call: str | None = None
    ) -> tuple[Observation, StepInfo, bool]:
        """Parse and carry out one action; returns (observation, info, done).

        `call` names the workflow call this step belongs to; the trajectory records it.
        """
        if self.done:
            raise EpisodeOver(f"the episode is over ({self.done_reason}); call reset()")
        before = self._last or await self.observe()
        started = time.perf_counter()
        action: Action | None = None
        note, target, reason = "", None, None
        try:
            action = parse_action(action_text)
            note, target = await self._execute(action, before)
        except (ActionParseError, ActionFailed) as err:
            reason = err.reason if isinstance(err, ActionParseError) else str(err)
        note = await self._aftermath(note)
        observation = await self.observe()
        step = TrajectoryStep(
            index=len(self.trajectory) + 1,
            observation=before.summary(self.config.observation_chars),
            url=before.url,
            raw=action_text,
            action=action.canonical if action else None,
            valid=reason is None,
            reason=reason,
            target=target,
            seconds=time.perf_counter() - started,
            call=call,
        )
        stop = reason is None and action is not None and action.type is ActionType.STOP
        info = self._record(step, observation.url, note, action if stop else None)
        return observation, info, self.done

    async def _aftermath(self, note: str) -> str:
        """Adopt a tab the action opened; after a refused request, say so and stay put."""
        assert self._tabs is not None and self._guard is not None
        opened = await self._tabs.adopt_popup(self.config.action_timeout_ms)
        note = "; ".join(filter(None, [note, opened]))
        navigation = self._guard.navigation_blocked
        blocked = self._guard.take_blocked()
        if blocked:
            note = "; ".join(filter(None, [note, "blocked (origin not allowed): " + blocked[0]]))
            cdp = await self._session(self.page)
            if await leave_error_page(self.page, cdp, self.policy, navigation_blocked=navigation):
                note += "; stayed on the previous page"
        return note

    def reject(self, raw: str, reason: str, *, call: str | None = None) -> StepInfo:
        """Record a step refused before acting (e.g. a workflow step whose target is missing):
        it counts as an invalid action, so the agent sees `reason` and the limits apply."""
        if self.done:
            raise EpisodeOver(f"the episode is over ({self.done_reason}); call reset()")
        if self._last is None:
            raise RuntimeError("nothing observed yet: call reset() first")
        step = TrajectoryStep(
            index=len(self.trajectory) + 1,
            observation=self._last.summary(self.config.observation_chars),
            url=self._last.url,
            raw=raw,
            action=None,
            valid=False,
            reason=reason,
            call=call,
        )
        return self._record(step, self._last.url, "", None)

    def _record(self, step: TrajectoryStep, url: str, note: str, stop: Action | None) -> StepInfo:
        """Append the step, apply stop/limits, and describe the outcome."""
        self.trajectory.append(step)
        if stop is not None:
            self.done_reason, self.answer = "stop", stop.text or ""
        else:
            self.done_reason = limit_reason(self.trajectory, self.config.limits)
        return StepInfo(
            raw=step.raw,
            action=step.action,
            valid=step.valid,
            reason=step.reason,
            url=url,
            note=note,
            target=step.target,
            done_reason=self.done_reason,
            answer=self.answer,
            seconds=step.seconds,
        )

    async def _execute(self, action: Action, seen: Observation) -> tuple[str, str | None]:
        """Carry out `action`; returns (note, target line). Raises ActionFailed when it can't."""
        assert self._tabs is not None
        if action.type not in perform.ON_ELEMENT:
            return await perform.on_page(action, self._tabs, self.policy), None
        node = seen.nodes.get(action.element_id or "")
        if node is None:
            raise ActionFailed(
                f"there is no element [{action.element_id}] in the current observation; "
                "use an id shown in the tree"
            )
        self._serial += 1
        cdp = await self._session(self.page)
        target = await executor.resolve(self.page, cdp, node, self._serial)
        note = await perform.on_element(action, target, self._tabs, self.config.action_timeout_ms)
        return note, node.line

    async def _session(self, page: Page) -> CDPSession:
        assert self._tabs is not None
        return await self._tabs.session(page)
