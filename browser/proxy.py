"""The guard's network layer: a filtering forward proxy every guarded browser context uses.

Playwright's route handlers miss requests the browser makes on its own: the hops of a redirect
(also after a fulfilled 3xx), preconnects, and websockets opened by workers. Each of those is
still a connection through the context's proxy, so the proxy checks every one of them: a plain
http request by its absolute url, a CONNECT tunnel (https, ws, wss) by host and port. A host
name is resolved here and a name that resolves to a private or link-local address is refused
unless the allow-list names that host (so DNS cannot smuggle 169.254.169.254 in); the proxy
then connects to the very address it checked. Refused requests get a 403 and never reach the
host. One request per client connection (`Connection: close` both ways), so a kept-alive
connection can never carry a second request to another origin.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import logging
import re
import socket
from collections.abc import Awaitable, Callable
from urllib.parse import urlsplit

from browser.origins import OriginPolicy, is_internal_host, normalize_host, origin_of

log = logging.getLogger(__name__)

HEAD_LIMIT = 64 * 1024
CONNECT_TIMEOUT_S = 10.0
IDLE_TIMEOUT_S = 120.0
# (host, port) -> the addresses to connect to; tests give their own
Resolver = Callable[[str, int], Awaitable[list[str]]]
_HOP_HEADERS = re.compile(
    rb"^(proxy-connection|connection|keep-alive|proxy-authorization):.*\r\n",
    re.IGNORECASE | re.MULTILINE,
)


def _error_page(url: str, reason: str, status: bytes = b"403 Forbidden") -> bytes:
    title = "Blocked by the origin guard" if status.startswith(b"403") else "Cannot connect"
    body = (
        f"<title>{title}</title><h1>{title}</h1><p>{html.escape(url)}</p>"
        f"<p>{html.escape(reason)}</p>"
    ).encode()
    return (
        b"HTTP/1.1 " + status + b"\r\nContent-Type: text/html; charset=utf-8\r\n"
        b"Connection: close\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body
    )


def _close_headers(head: bytes) -> bytes:
    """The head with its hop-by-hop headers replaced by `Connection: close`."""
    first, _, rest = head.partition(b"\r\n")
    return first + b"\r\n" + _HOP_HEADERS.sub(b"", rest)[:-2] + b"Connection: close\r\n\r\n"


class GuardProxy:
    """`await proxy.start()` -> its url; `policy()` is read per connection (it may change)."""

    def __init__(
        self,
        policy: Callable[[], OriginPolicy],
        on_refused: Callable[[str], None],
        resolve: Resolver | None = None,
    ) -> None:
        self.policy = policy
        self.on_refused = on_refused
        self.resolve = resolve or _resolve
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self) -> str:
        if self._server is None:
            self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        port = self._server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}"

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.ensure_future(self._serve(reader, writer))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), IDLE_TIMEOUT_S)
            await self._handle(head, reader, writer)
        except (
            asyncio.IncompleteReadError,
            asyncio.LimitOverrunError,
            TimeoutError,
            ConnectionError,
            OSError,
        ) as err:
            log.debug("proxy connection ended: %s", err)
        finally:
            writer.close()

    async def _handle(
        self, head: bytes, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        method, target, _ = head.split(b"\r\n", 1)[0].decode("latin-1").split(" ", 2)
        if method.upper() == "CONNECT":
            host, _, port = target.rpartition(":")
            url, path = origin_of(f"https://{host}:{port}") or target, b""
        else:
            parts = urlsplit(target)
            host, port = parts.hostname or "", str(parts.port or 80)
            query = b"?" + parts.query.encode() if parts.query else b""
            url, path = target, (parts.path or "/").encode() + query
        address, reason = await self._resolve(url, host, port, method.upper() == "CONNECT")
        if address is None:
            self.on_refused(url)
            writer.write(_error_page(url, reason or "refused"))
            await writer.drain()
            return
        try:
            upstream_reader, upstream = await asyncio.wait_for(
                asyncio.open_connection(address, int(port)), CONNECT_TIMEOUT_S
            )
        except (OSError, TimeoutError) as err:
            writer.write(_error_page(url, f"cannot connect: {err}", b"502 Bad Gateway"))
            await writer.drain()
            return
        try:
            if method.upper() == "CONNECT":
                writer.write(b"HTTP/1.1 200 Connection Established\r\n\r\n")
            else:
                first, _, rest = head.partition(b"\r\n")
                verb, _, version = first.split(b" ", 2)
                upstream.write(_close_headers(verb + b" " + path + b" " + version + b"\r\n" + rest))
            await asyncio.gather(
                _pipe(reader, upstream), _pipe(upstream_reader, writer, rewrite=method != "CONNECT")
            )
        finally:
            upstream.close()

    async def _resolve(
        self, url: str, host: str, port: str, tunnel: bool
    ) -> tuple[str | None, str | None]:
        """(address to connect to, None) or (None, why the request is refused)."""
        policy = self.policy()
        checks = [url, f"http://{host}:{port}"] if tunnel else [url]  # a tunnel may carry ws
        reasons = [policy.check(u) for u in checks]
        if all(reasons):
            return None, reasons[0]
        name = normalize_host(host)
        try:
            addresses = await asyncio.wait_for(self.resolve(name, int(port)), CONNECT_TIMEOUT_S)
        except (OSError, TimeoutError) as err:
            return None, f"cannot resolve {host}: {err}"
        if not addresses:
            return None, f"{host} has no address"
        if not is_internal_host(name) and not policy.names(name):
            inner = [a for a in addresses if is_internal_host(normalize_host(a))]
            if inner:
                return None, f"{host} resolves to a private address ({inner[0]})"
        return addresses[0], None


async def _resolve(host: str, port: int) -> list[str]:
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return [str(info[4][0]) for info in infos]


async def _pipe(
    source: asyncio.StreamReader, sink: asyncio.StreamWriter, *, rewrite: bool = False
) -> None:
    """Copy until EOF; `rewrite` makes the first head (a response's) say Connection: close."""
    with contextlib.suppress(ConnectionError, OSError, asyncio.IncompleteReadError):
        if rewrite:
            sink.write(_close_headers(await source.readuntil(b"\r\n\r\n")))
        while chunk := await asyncio.wait_for(source.read(65536), IDLE_TIMEOUT_S):
            sink.write(chunk)
            await sink.drain()
    with contextlib.suppress(OSError):
        if sink.can_write_eof():
            sink.write_eof()
