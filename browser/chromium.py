"""Launch Debian's chromium through Playwright the way this machine allows (no download)."""

from __future__ import annotations

import shutil

from playwright.async_api import Browser, Playwright

# Without the background-networking flags chromium floods a closed network with connections.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
    "--disable-gpu",
    "--disable-quic",
    # Chromium's own calls home (autofill, hints, translate) would show up as refused requests.
    "--disable-features=AutofillServerCommunication,OptimizationHints,Translate,MediaRouter",
    # WebRTC may not send UDP outside a proxy: no way around the guard's proxy.
    "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
]


class BrowserUnavailable(RuntimeError):
    """No chromium on PATH; the message says how to install it."""


def chromium_path() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if not path:
        raise BrowserUnavailable(
            "chromium is not installed: run `apt-get install -y chromium` (Playwright's own "
            "browser download is not used)"
        )
    return path


async def launch_browser(playwright: Playwright, *, headless: bool = True) -> Browser:
    """A headless chromium from the system, never a downloaded one."""
    return await playwright.chromium.launch(
        executable_path=chromium_path(), headless=headless, args=CHROMIUM_ARGS
    )
