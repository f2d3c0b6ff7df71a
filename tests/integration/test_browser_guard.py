"""Escape attempts against the origin guard, through the research tools and the web agent's env.

A logging server on 127.0.0.1 (a port nobody allowed) counts every connection it gets. An
allowed site on another port serves pages that try every way out to it. With the logging
server's origin named (the control), each kind of attempt reaches it: it is a real way out.
With the default allow-list it must get 0 connections, through the tools and the env alike.
Link-local is refused before any connection (the refusal comes from the pre-check).
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
    path: str  # what the logging server sees when the attempt gets out
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
]
LINK_LOCAL = "http://169.254.169.254/latest/meta-data/"


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
    """Every kind through the env; returns the refusal of the link-local attempt."""
    async with BrowserEnv(EnvConfig(allowed_origins=allowed, limits=UNLIMITED)) as env:
        await env.reset(f"{good}/start")
        for kind in KINDS:
            obs, _, _ = await env.step(f"goto [{_url(kind, good, bad, port)}]")
            if kind.click:
                link = next(n.id for n in obs.nodes.values() if n.name == kind.click)
                await env.step(f"click [{link}]")
        _, info, _ = await env.step(f"goto [{LINK_LOCAL}]")
        await asyncio.sleep(0.5)
        return [info.reason or ""]


def test_control_every_kind_is_a_real_way_out(servers) -> None:
    good, bad, port, log = servers
    start = len(log.requests)
    asyncio.run(_env_attempts(good, bad, port, allowed=(bad,)))
    _quiet(log)
    seen = " ".join(log.requests[start:])
    missing = [k.name for k in KINDS if f" {k.path} " not in seen]
    assert not missing, f"these attempts never reached the server even when allowed: {missing}"


def test_env_blocks_every_escape(servers, capsys) -> None:
    good, bad, port, log = servers
    before = log.count()
    (link_local,) = asyncio.run(_env_attempts(good, bad, port, allowed=()))
    leaked = _quiet(log) - before
    assert "goto refused" in link_local and "169.254.169.254" in link_local
    assert leaked == 0, f"the logging server got {leaked} connection(s): {log.requests[-5:]}"
    with capsys.disabled():
        print(f"\nenv: escape attempts blocked: {len(KINDS) + 1}/{len(KINDS) + 1}")


def test_tools_block_every_escape(servers, capsys) -> None:
    good, bad, port, log = servers
    before = log.count()
    with BrowserSession(allowed_origins=[good], max_chars=100_000) as session:
        tools = {t.name: t for t in browser_tools(session)}
        for kind in KINDS:
            result = tools["browser_open"].invoke({"url": _url(kind, good, bad, port)})
            if kind.click:
                tools["browser_follow_link"].invoke({"link": kind.click})
            assert "LEAKED" not in result, kind.name
        link_local = tools["browser_open"].invoke({"url": LINK_LOCAL})
        leaked = _quiet(log) - before
    assert link_local.startswith("Refused:") and "link-local" in link_local
    assert leaked == 0, f"the logging server got {leaked} connection(s): {log.requests[-5:]}"
    with capsys.disabled():
        print(f"\ntools: escape attempts blocked: {len(KINDS) + 1}/{len(KINDS) + 1}")
