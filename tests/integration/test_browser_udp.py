"""No UDP out of the browser: WebRTC and WebTransport from an allowed page, its frames, its popups
and sandboxed (opaque-origin) documents: srcdoc, data: and blob: frames, a sandboxed frame in a
sandboxed frame, a sandboxed frame's popup.

A UDP listener on 127.0.0.1 speaks enough STUN/TURN to ask for credentials, so a client that
gets through sends its TURN username, which each page fills with a base64 copy of its own text.
Each layer of browser/chromium.py is checked on its own, beside a control:
- the control loads every page in Debian's chromium with no lockdown flags and no guard: every
  kind reaches the listener (a WebRTC kind with its page's text), so each is a real way out;
- the browser layer alone (`launch_browser`'s flags and a context behind the guard's proxy, but
  no routes and no in-page removal): 0 datagrams, although every page made its attempt;
- the whole guard, through the env, the research tools and `main.py browse`: 0 datagrams, and
  every page reports its attempt refused, so the in-page removal reached every document.
Counts go to the session's tally (tests/integration/conftest.py prints them).
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from playwright.async_api import async_playwright

from agents.tools.browser_tools import browser_tools
from browser.chromium import BASE_ARGS, chromium_path, launch_browser
from browser.env import BrowserEnv, EnvConfig
from browser.guard import RequestGuard
from browser.limits import Limits
from browser.origins import OriginPolicy
from browser.session import BrowserSession
from tests.integration.processes import CHILD_TIMEOUT_S, run_child
from tests.integration.udp_site import (
    KINDS,
    SANDBOXED_KINDS,
    Datagrams,
    Site,
    attempt_site,
    udp_listener,
)

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]
UNLIMITED = Limits(10**6, 10**6, 10**6)
SETTLE_S = 2.0  # STUN retransmits within a second; a kind that got out has sent by then
WEBRTC_KINDS = [k for k in KINDS if "WebTransport" not in k]


@pytest.fixture(scope="module")
def servers() -> Iterator[tuple[Site, Datagrams]]:
    with udp_listener() as (port, got), attempt_site(port) as site:
        yield site, got


def _wait(done: Callable[[], bool], seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not done() and time.monotonic() < deadline:
        time.sleep(0.05)


def _reports_since(site: Site, start: int, kinds: list[str]) -> dict[str, str]:
    _wait(lambda: set(kinds) <= {k for k, _ in site.reports[start:]}, 5.0)
    return dict(site.reports[start:])


async def _unguarded(site: Site, got: Datagrams) -> dict[str, int]:
    """Each kind in a fresh context of a chromium launched with BASE_ARGS only, no guard: the
    datagrams the listener got while it was open."""
    sent = {}
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=chromium_path(), args=BASE_ARGS)
        for kind in KINDS:
            context = await browser.new_context()
            before = got.seen()
            await (await context.new_page()).goto(site.url(kind))
            await asyncio.sleep(SETTLE_S)
            sent[kind] = got.seen() - before
            await context.close()
        await browser.close()
    return sent


def test_control_every_kind_reaches_the_listener_without_the_guard(servers, tally) -> None:
    site, got = servers
    sent = asyncio.run(_unguarded(site, got))
    tally["udp_control_datagrams"] += sum(sent.values())
    assert all(sent.values()), f"kinds that sent nothing even without the guard: {sent}"
    texts = got.texts()
    for kind in WEBRTC_KINDS:  # the page's own text left the browser in the TURN username
        assert any(t.startswith(kind + " ") and "secret text of" in t for t in texts), kind


async def _browser_layer(site: Site) -> None:
    """Every kind open at once in its own tab of one context behind the guard's proxy, in the
    project's chromium, without the guard's routes or its in-page removal."""
    guard = RequestGuard(OriginPolicy((site.base,)))
    async with async_playwright() as playwright:
        browser = await launch_browser(playwright)
        context = await browser.new_context(**await guard.context_options())
        for kind in KINDS:
            await (await context.new_page()).goto(site.url(kind))
        await asyncio.sleep(SETTLE_S)
        await browser.close()
    await guard.close()


def test_the_browser_alone_sends_no_udp_from_any_document(servers, tally) -> None:
    site, got = servers
    before, start = got.seen(), len(site.reports)
    asyncio.run(_browser_layer(site))
    datagrams = got.seen() - before
    tally["udp_layer_datagrams"] += datagrams
    tally["udp_layer_tried"] += len(KINDS)
    reports = _reports_since(site, start, list(KINDS))
    made = {k: r for k, r in reports.items() if r == "sent"}
    assert set(made) == set(KINDS), f"pages that did not get to try: {set(KINDS) - set(made)}"
    assert datagrams == 0, f"the listener got {datagrams} datagram(s): {got.texts()[-3:]}"


def _record(tally, side: str, tried: int, datagrams: int) -> None:
    for key, n in (("udp_tried", tried), ("udp_datagrams", datagrams)):
        tally[key] += n
        tally[f"{key}_{side}"] += n


def _assert_refused(reports: dict[str, str], kinds: list[str]) -> None:
    """Every kind's page ran and was refused, so 0 datagrams is also the in-page removal's."""
    assert set(kinds) <= set(reports), f"pages that never reported: {set(kinds) - set(reports)}"
    sent = {k: r for k, r in reports.items() if not r.startswith("refused: TypeError")}
    assert not sent, f"attempts not refused: {sent}"


def _assert_no_udp(servers, tally, side: str, kinds: list[str], since: tuple[int, int]) -> None:
    """`side` tried `kinds` since (datagrams, reports) were counted: each was refused in the
    page and no datagram reached the listener (counted in the tally either way)."""
    site, got = servers
    datagrams = got.seen() - since[0]
    _record(tally, side, len(kinds), datagrams)
    _assert_refused(_reports_since(site, since[1], kinds), kinds)
    assert datagrams == 0, f"the listener got {datagrams} datagram(s): {got.texts()[-3:]}"


async def _env_attempts(site: Site) -> None:
    async with BrowserEnv(EnvConfig(allowed_origins=(site.base,), limits=UNLIMITED)) as env:
        await env.reset(f"{site.base}/start")
        for kind in KINDS:
            _, info, _ = await env.step(f"goto [{site.url(kind)}]")
            assert info.valid and not info.reason, (kind, info)
        await asyncio.sleep(SETTLE_S)  # the pages stay open while the listener waits


def test_env_sends_no_udp(servers, tally) -> None:
    site, got = servers
    since = got.seen(), len(site.reports)
    asyncio.run(_env_attempts(site))
    _assert_no_udp(servers, tally, "env", list(KINDS), since)


def test_tools_send_no_udp(servers, tally) -> None:
    site, got = servers
    since = got.seen(), len(site.reports)
    with BrowserSession(allowed_origins=[site.base], max_chars=100_000) as session:
        tools = {t.name: t for t in browser_tools(session)}
        for kind in KINDS:
            result = tools["browser_open"].invoke({"url": site.url(kind)})
            assert not result.startswith(("Refused:", "Error:")), (kind, result[:300])
        time.sleep(SETTLE_S)
        _assert_no_udp(servers, tally, "tools", list(KINDS), since)  # the pages still open


def test_browse_cli_sends_no_udp_from_sandboxed_documents(servers, tally) -> None:
    site, got = servers
    since = got.seen(), len(site.reports)
    for kind in SANDBOXED_KINDS:  # the URL's own origin is the one allowed
        argv = [sys.executable, "main.py", "browse", site.url(kind), "--json"]
        done = run_child(argv, cwd=ROOT, text=True, timeout=CHILD_TIMEOUT_S)
        assert done.returncode == 0, (kind, done.stderr[-500:])
    time.sleep(0.5)  # the listener's thread takes in what arrived before chromium closed
    _assert_no_udp(servers, tally, "browse", SANDBOXED_KINDS, since)
