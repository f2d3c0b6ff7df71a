"""Serve a folder over HTTP on 127.0.0.1 (a free port, a background thread) for local benchmarks."""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


class _QuietHandler(SimpleHTTPRequestHandler):
    """Static files without a log line per request (an episode loads a dozen files)."""

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib signature
        return

    def end_headers(self) -> None:
        # Pages must not come from a stale cache when a benchmark edits or reloads them.
        self.send_header("Cache-Control", "no-store")
        super().end_headers()


@contextmanager
def serve_directory(root: str | Path) -> Iterator[str]:
    """Yield the base url ("http://127.0.0.1:PORT") serving `root`; stop the server on exit."""
    root = Path(root)
    if not root.is_dir():
        raise FileNotFoundError(f"cannot serve {root}: not a directory")
    handler = functools.partial(_QuietHandler, directory=str(root))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, name="static-server", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
