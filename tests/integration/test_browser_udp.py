"""No UDP out of the browser: WebRTC and WebTransport from an allowed page, its frames and popups.

A UDP listener on 127.0.0.1 speaks enough STUN/TURN to ask for credentials, so a client that
gets through sends its TURN username, which each page fills with a base64 copy of its own text.
The controls load every page in Debian's chromium without the guard: with no lockdown flags,
and with the project's own launch flags (CHROMIUM_ARGS) but no `harden`; in both, every kind
reaches the listener (a WebRTC kind with its page's text), so each is a real way out that the
flags alone do not close. Through the guarded env and the research tools, the listener must get
0 datagrams while every page reports that it tried and was refused. Counts go to the session's
tally (tests/integration/conftest.py prints them).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator

import pytest
from playwright.async_api import async_playwright

from agents.tools.browser_tools import browser_tools
from browser.chromium import BASE_ARGS, CHROMIUM_ARGS, chromium_path
from browser.env import BrowserEnv, EnvConfig
from browser.limits import Limits
from browser.session import BrowserSession
from tests.integration.udp_site import KINDS, Datagrams, Site, attempt_site, udp_listener

pytestmark = pytest.mark.integration
UNLIMITED = Limits(10**6, 10**6, 10**6)
SETTLE_S = 2.0  # STUN retransmits within a second; a kind that got out has sent by then
WEBRTC_KINDS = [k for k in KINDS if k != "WebTransport"]


@pytest.fixture(scope="module")
def servers() -> Iterator[tuple[Site, Datagrams]]:
    with udp_listener() as (port, got), attempt_site(port) as site:
        yield site, got


def _wait(done: Callable[[], bool], seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not done() and time.monotonic() < deadline:
        time.sleep(0.05)


async def _unguarded(site: Site, got: Datagrams, args: list[str]) -> dict[str, int]:
    """Each kind in a fresh context of a chromium launched with `args`, no guard and no
    `harden`: the datagrams the listener got while it was open."""
    sent = {}
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=chromium_path(), args=args)
        for kind in KINDS:
            context = await browser.new_context()
            before = got.seen()
            await (await context.new_page()).goto(site.url(kind))
            await asyncio.sleep(SETTLE_S)
            sent[kind] = got.seen() - before
            await context.close()
        await browser.close()
    return sent


@pytest.mark.parametrize("flags", ["no lockdown flags", "the project's flags"])
def test_control_every_kind_reaches_the_listener_without_the_guard(servers, flags, tally) -> None:
    site, got = servers
    args = BASE_ARGS if flags == "no lockdown flags" else CHROMIUM_ARGS
    sent = asyncio.run(_unguarded(site, got, args))
    tally["udp_control_datagrams"] += sum(sent.values())
    assert all(sent.values()), f"kinds that sent nothing even without the guard: {sent}"
    texts = got.texts()
    for kind in WEBRTC_KINDS:  # the page's own text left the browser in the TURN username
        assert any(t.startswith(kind + " ") and "secret text of" in t for t in texts), kind


def _reports_since(site: Site, start: int) -> dict[str, str]:
    _wait(lambda: len({k for k, _ in site.reports[start:]}) >= len(KINDS), 5.0)
    return dict(site.reports[start:])


def _record(tally, side: str, datagrams: int) -> None:
    for key, n in (("udp_tried", len(KINDS)), ("udp_datagrams", datagrams)):
        tally[key] += n
        tally[f"{key}_{side}"] += n


def _assert_refused(reports: dict[str, str]) -> None:
    """Every kind's page ran and was refused, so 0 datagrams is the guard's doing."""
    assert set(reports) == set(KINDS), f"pages that never reported: {set(KINDS) - set(reports)}"
    sent = {k: r for k, r in reports.items() if not r.startswith("refused: TypeError")}
    assert not sent, f"attempts not refused: {sent}"


async def _env_attempts(site: Site) -> None:
    async with BrowserEnv(EnvConfig(allowed_origins=(site.base,), limits=UNLIMITED)) as env:
        await env.reset(f"{site.base}/start")
        for kind in KINDS:
            _, info, _ = await env.step(f"goto [{site.url(kind)}]")
            assert info.valid and not info.reason, (kind, info)
        await asyncio.sleep(SETTLE_S)  # the pages stay open while the listener waits


def test_env_sends_no_udp(servers, tally) -> None:
    site, got = servers
    before, start = got.seen(), len(site.reports)
    asyncio.run(_env_attempts(site))
    datagrams = got.seen() - before
    _record(tally, "env", datagrams)
    _assert_refused(_reports_since(site, start))
    assert datagrams == 0, f"the listener got {datagrams} datagram(s): {got.texts()[-3:]}"


def test_tools_send_no_udp(servers, tally) -> None:
    site, got = servers
    before, start = got.seen(), len(site.reports)
    with BrowserSession(allowed_origins=[site.base], max_chars=100_000) as session:
        tools = {t.name: t for t in browser_tools(session)}
        for kind in KINDS:
            result = tools["browser_open"].invoke({"url": site.url(kind)})
            assert not result.startswith(("Refused:", "Error:")), (kind, result[:300])
        time.sleep(SETTLE_S)
        datagrams = got.seen() - before
    _record(tally, "tools", datagrams)
    _assert_refused(_reports_since(site, start))
    assert datagrams == 0, f"the listener got {datagrams} datagram(s): {got.texts()[-3:]}"
