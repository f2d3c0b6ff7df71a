"""Escape attempts against the origin guard, through the research tools and the web agent's env.

A logging server on 127.0.0.1 (a port nobody allowed) counts every connection it gets. An
allowed site on another port serves pages that try every way out to it. With the logging
server's origin named (the control), each kind of attempt reaches it: it is a real way out.
With the default allow-list it must get 0 connections, through the tools and the env alike.
Link-local is refused before any connection: directly by the pre-check, and as a redirect hop
(the allowed site's `/to-metadata` 302) by the guard's proxy, fast, even with the logging server
allowed. Counts go to the session's tally (tests/integration/conftest.py prints them).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from agents.tools.browser_tools import browser_tools
from browser.env import BrowserEnv, EnvConfig
from browser.limits import Limits
from browser.session import BrowserSession
from tests.integration.escape_site import Log, allowed_site, logging_server

pytestmark = pytest.mark.integration
UNLIMITED = Limits(10**6, 10**6, 10**6)


@dataclass(frozen=True)
class Kind:
    name: str
    url: str  # {good} / {bad} / {port} filled in
    path: str | None  # what the logging server sees when the attempt gets out; None: the
    # attempt aims at link-local metadata, never the logging server, and is refused even there
    click: str | None = None  # a link to click on the loaded page


KINDS = [
    Kind("direct navigation", "{bad}/direct", "/direct"),
    Kind("301 redirect", "{good}/r301", "/r301"),
    Kind("302 redirect", "{good}/r302", "/r302"),
    Kind("307 redirect", "{good}/r307", "/r307"),
    Kind("308 redirect", "{good}/r308", "/r308"),
    Kind("redirect after an allowed hop", "{good}/chain", "/chain"),
    Kind("meta refresh", "{good}/meta", "/meta"),
    Kind("location= script", "{good}/location", "/location"),
    Kind("window.open popup", "{good}/popup", "/popup"),
    Kind("target=_blank link", "{good}/blank", "/blank", click="Out"),
    Kind("iframe", "{good}/iframe", "/iframe"),
    Kind("img", "{good}/img", "/img.png"),
    Kind("fetch", "{good}/fetch", "/fetch?data=secret"),
    Kind("XHR", "{good}/xhr", "/xhr"),
    Kind("websocket", "{good}/websocket", "/ws"),
    Kind("form post", "{good}/form", "/form"),
    Kind("CSS @import", "{good}/css", "/import.css"),
    Kind("link prefetch", "{good}/prefetch", "/prefetch"),
    Kind("sendBeacon", "{good}/beacon", "/beacon"),
    Kind("EventSource", "{good}/eventsource", "/events"),
    Kind("web font", "{good}/font", "/f.woff"),
    Kind("worker fetch", "{good}/worker", "/worker"),
    Kind("worker websocket", "{good}/worker-ws", "/wsw"),
    Kind("decimal IP", "http://2130706433:{port}/dec", "/dec"),
    Kind("hex IP", "http://0x7f000001:{port}/hex", "/hex"),
    Kind("octal IP", "http://0177.0.0.1:{port}/oct", "/oct"),
    Kind("short IP", "http://127.1:{port}/short", "/short"),
    Kind("hyperlink ping", "{good}/ping", "/ping", click="Ping link"),
    Kind("link-local address", "http://169.254.169.254/latest/meta-data/", None),
    Kind("302 redirect to link-local metadata", "{good}/to-metadata", None),
]
LINK_LOCAL_SECONDS = 5.0  # a refusal is immediate; a real connection attempt would hang


@pytest.fixture(scope="module")
def servers() -> Iterator[tuple[str, str, int, Log]]:
    with logging_server() as (port, log), allowed_site(port) as good:
        yield good, f"http://127.0.0.1:{port}", port, log


def _url(kind: Kind, good: str, bad: str, port: int) -> str:
    return kind.url.format(good=good, bad=bad, port=port)


def _quiet(log: Log, seconds: float = 1.5) -> int:
    """The connection count once late requests (scripts, workers) had time to arrive."""
    time.sleep(seconds)
    return log.count()


async def _env_attempts(good: str, bad: str, port: int, allowed: tuple[str, ...]) -> list[str]:
    """Every kind through the env; returns what each link-local attempt was told."""
    told = []
    async with BrowserEnv(EnvConfig(allowed_origins=allowed, limits=UNLIMITED)) as env:
        await env.reset(f"{good}/start")
        for kind in KINDS:
            started = time.perf_counter()
            obs, info, _ = await env.step(f"goto [{_url(kind, good, bad, port)}]")
            if kind.click:
                link = next(n.id for n in obs.nodes.values() if n.name == kind.click)
                await env.step(f"click [{link}]")
            if kind.path is None:
                assert time.perf_counter() - started < LINK_LOCAL_SECONDS, kind.name
                told.append(f"{info.reason or ''} {info.note or ''}")
        await asyncio.sleep(0.5)
    return told


def _reached(log: Log, start: int) -> list[str]:
    """The kinds whose request reached the logging server since request `start`."""
    seen = " ".join(log.requests[start:])
    return [k.name for k in KINDS if k.path and f" {k.path} " in seen]


def _record(tally, side: str, leaked: int, reached: list[str], refused: int) -> None:
    """Tried and blocked for the summary: blocked = not seen by the logging server (every
    kind with a path) or refused (link-local)."""
    to_server = sum(1 for k in KINDS if k.path)
    blocked = (to_server - len(reached) if leaked else to_server) + refused
    for key, n in (("tried", len(KINDS)), ("blocked", blocked)):
        tally[f"escape_{key}"] += n
        tally[f"escape_{key}_{side}"] += n
    tally["escape_leaked"] += leaked


def _refused(told: list[str]) -> int:
    return sum("169.254.169.254" in t and "LEAKED" not in t for t in told)


def test_control_every_kind_is_a_real_way_out(servers) -> None:
    good, bad, port, log = servers
    start = len(log.requests)
    told = asyncio.run(_env_attempts(good, bad, port, allowed=(bad,)))
    _quiet(log)
    reached = _reached(log, start)
    missing = [k.name for k in KINDS if k.path and k.name not in reached]
    assert not missing, f"these attempts never reached the server even when allowed: {missing}"
    assert _refused(told) == len(told) == 2, told  # link-local stays refused when not named


def test_env_blocks_every_escape(servers, tally) -> None:
    good, bad, port, log = servers
    before, start = log.count(), len(log.requests)
    told = asyncio.run(_env_attempts(good, bad, port, allowed=()))
    leaked = _quiet(log) - before
    _record(tally, "env", leaked, _reached(log, start), _refused(told))
    assert "goto refused" in told[0] and "169.254.169.254" in told[0]
    assert "blocked" in told[1] and "169.254.169.254" in told[1], told[1]
    assert leaked == 0, f"the logging server got {leaked} connection(s): {log.requests[-5:]}"


def test_tools_block_every_escape(servers, tally) -> None:
    good, bad, port, log = servers
    before, start = log.count(), len(log.requests)
    told = []
    with BrowserSession(allowed_origins=[good], max_chars=100_000) as session:
        tools = {t.name: t for t in browser_tools(session)}
        for kind in KINDS:
            started = time.perf_counter()
            result = tools["browser_open"].invoke({"url": _url(kind, good, bad, port)})
            if kind.click:
                tools["browser_follow_link"].invoke({"link": kind.click})
            assert "LEAKED" not in result, kind.name
            if kind.path is None:
                assert time.perf_counter() - started < LINK_LOCAL_SECONDS, kind.name
                told.append(result)
        leaked = _quiet(log) - before
    _record(tally, "tools", leaked, _reached(log, start), _refused(told))
    assert told[0].startswith("Refused:") and "link-local" in told[0]
    assert "169.254.169.254" in told[1], told[1][:300]
    assert leaked == 0, f"the logging server got {leaked} connection(s): {log.requests[-5:]}"
