"""Launch Debian's chromium through Playwright the way this machine allows (no download), with
every network channel the guard's proxy cannot see switched off.

Two layers, both applied to every browser and context the project starts:
1. `CHROMIUM_ARGS` (every launch): no QUIC, no browser-side DNS (the guard's proxy resolves a
   name only after the policy allows it, so a prefetch cannot leak a name to DNS), WebRTC kept
   to proxied routes, no Cast discovery (MediaRouter: mDNS and SSDP over UDP).
2. `NO_WEBRTC_SCRIPT` (every guarded context, `harden`): removes the WebRTC and WebTransport
   constructors from every frame and popup before the page's own scripts run. The flags alone
   do not stop their UDP: with `disable_non_proxied_udp` and `--disable-quic`, a page's STUN and
   TURN packets and a WebTransport's QUIC packets still reach a loopback UDP port, with a
   browser-wide proxy too (tests/integration/test_browser_udp.py's controls show it).
Every other request (pings, beacons, preconnects, websockets, workers) goes through the proxy.
"""

from __future__ import annotations

import json
import shutil

from playwright.async_api import Browser, BrowserContext, Playwright

# Without the background-networking flags chromium floods a closed network with connections.
BASE_ARGS = [
    "--no-sandbox",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
    "--disable-gpu",
    # Chromium's own calls home (autofill, hints, translate) would show up as refused requests.
    "--disable-features=AutofillServerCommunication,OptimizationHints,Translate,MediaRouter",
]
# Channels that do not go through a context's proxy: UDP (QUIC, WebRTC, WebTransport) and DNS.
LOCKDOWN_ARGS = [
    "--disable-quic",
    "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
    # Every name goes to the proxy unresolved; only the proxy's own address stays reachable.
    "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1 , EXCLUDE localhost",
    "--disable-domain-reliability",
]
CHROMIUM_ARGS = BASE_ARGS + LOCKDOWN_ARGS

# Interfaces a page could open a UDP path with. Defined as non-configurable `undefined` on every
# window the page can reach before that window's own copy of this script has run: a new
# iframe's contentWindow and a popup's window.
BLOCKED_INTERFACES = (
    "RTCPeerConnection",
    "webkitRTCPeerConnection",
    "RTCDataChannel",
    "RTCIceCandidate",
    "RTCIceTransport",
    "RTCSessionDescription",
    "RTCRtpSender",
    "RTCRtpReceiver",
    "RTCRtpTransceiver",
    "RTCDtlsTransport",
    "RTCSctpTransport",
    "RTCCertificate",
    "WebTransport",
)
NO_WEBRTC_SCRIPT = """
(() => {
  const names = __NAMES__;
  const scrub = (w) => {
    for (const name of names) {
      try {
        Object.defineProperty(w, name, {value: undefined, writable: false, configurable: false});
      } catch (e) { /* cross-origin, or already scrubbed */ }
    }
  };
  scrub(window);
  const wrapGetter = (proto, prop, toWindow) => {
    const d = proto && Object.getOwnPropertyDescriptor(proto, prop);
    if (!d || !d.get) return;
    Object.defineProperty(proto, prop, {
      configurable: false,
      enumerable: d.enumerable,
      get() {
        const value = d.get.call(this);
        try { const w = toWindow(value); if (w) scrub(w); } catch (e) {}
        return value;
      },
    });
  };
  for (const C of [window.HTMLIFrameElement, window.HTMLFrameElement, window.HTMLObjectElement]) {
    if (!C) continue;
    wrapGetter(C.prototype, "contentWindow", (w) => w);
    wrapGetter(C.prototype, "contentDocument", (d) => d && d.defaultView);
  }
  // Left writable: other init scripts (browser.popups counts window.open calls) wrap it too.
  const open = window.open;
  window.open = function (...args) {
    const w = open.apply(this, args);
    try { if (w) scrub(w); } catch (e) {}
    return w;
  };
})();
""".replace("__NAMES__", json.dumps(BLOCKED_INTERFACES))


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
    """A headless chromium from the system, never a downloaded one, with the lockdown flags."""
    return await playwright.chromium.launch(
        executable_path=chromium_path(), headless=headless, args=CHROMIUM_ARGS
    )


async def harden(context: BrowserContext) -> None:
    """Remove the WebRTC and WebTransport constructors from every frame of `context`."""
    await context.add_init_script(NO_WEBRTC_SCRIPT)
