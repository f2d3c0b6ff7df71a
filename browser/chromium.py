"""Launch Debian's chromium through Playwright the way this machine allows (no download), with
every network channel the guard's proxy cannot see switched off.

Two layers, both applied to every browser and context the project starts (`launch_browser` is
the one launch; the env, the research tools and `browse` all go through it):
1. `CHROMIUM_ARGS` (every launch): no QUIC; no browser-side DNS (the guard's proxy resolves a
   name only after the policy allows it, so a prefetch cannot leak a name to DNS); WebRTC may
   use proxied routes only (`--webrtc-ip-handling-policy=disable_non_proxied_udp`: chromium
   proxies no UDP, so it gathers no UDP candidates and sends no STUN or TURN-over-UDP packet, in
   every document, sandboxed and opaque-origin ones included); no Cast discovery (MediaRouter:
   mDNS and SSDP over UDP). WebTransport (HTTP/3 over QUIC) cannot go through an HTTP proxy,
   so the guard's per-context proxy makes every one fail before a packet leaves.
2. `NO_WEBRTC_SCRIPT` (every guarded context, `harden`): removes the WebRTC and WebTransport
   constructors from every frame and popup before the page's own scripts run, so a page is
   told no rather than relying on layer 1 alone. Sandboxed frames and popups are kept in their
   opener's renderer (IsolateSandboxedIframes off): in a renderer of their own, the init
   script can run after their scripts.
tests/integration/test_browser_udp.py checks each layer on its own against a real UDP listener.
Every other request (pings, beacons, preconnects, websockets, workers) goes through the proxy.
"""

from __future__ import annotations

import asyncio
import json
import shutil

from playwright.async_api import Browser, BrowserContext, Playwright

# Chromium's own calls home (autofill, hints, translate) would show up as refused requests.
QUIET_FEATURES = ("AutofillServerCommunication", "OptimizationHints", "Translate")
# Cast discovery sends UDP; a sandboxed document in a renderer of its own can escape `harden`.
LOCKDOWN_FEATURES = ("MediaRouter", "IsolateSandboxedIframes")


def _disable_features(*names: str) -> str:
    """One --disable-features switch: chromium reads only the last one on its command line."""
    return "--disable-features=" + ",".join(names)


# Without the background-networking flags chromium floods a closed network with connections.
_SWITCHES = [
    "--no-sandbox",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
    "--disable-gpu",
]
BASE_ARGS = _SWITCHES + [_disable_features(*QUIET_FEATURES)]
# Channels that do not go through a context's proxy: UDP (QUIC, WebRTC, Cast) and DNS.
LOCKDOWN_ARGS = [
    "--disable-quic",
    # The switch chromium reads; `--force-webrtc-ip-handling-policy` is not one it knows.
    "--webrtc-ip-handling-policy=disable_non_proxied_udp",
    # Every name goes to the proxy unresolved; only the proxy's own address stays reachable.
    "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1 , EXCLUDE localhost",
    "--disable-domain-reliability",
]
CHROMIUM_ARGS = _SWITCHES + LOCKDOWN_ARGS + [_disable_features(*QUIET_FEATURES, *LOCKDOWN_FEATURES)]

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
    path = await asyncio.to_thread(chromium_path)  # a PATH search: file calls block a loop
    return await playwright.chromium.launch(
        executable_path=path, headless=headless, args=CHROMIUM_ARGS
    )


async def harden(context: BrowserContext) -> None:
    """Remove the WebRTC and WebTransport constructors from every frame of `context`."""
    await context.add_init_script(NO_WEBRTC_SCRIPT)
