"""The guard's proxy on real loopback sockets (no browser): what it forwards, what it refuses."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from browser.origins import OriginPolicy
from browser.proxy import GuardProxy


class Upstream:
    """A one-shot HTTP server that records what reached it."""

    def __init__(self) -> None:
        self.received: list[bytes] = []
        self.port = 0
        self._server: asyncio.Server | None = None

    async def __aenter__(self) -> Upstream:
        async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            self.received.append(await reader.readuntil(b"\r\n\r\n"))
            writer.write(
                b"HTTP/1.1 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nok"
            )
            await writer.drain()
            writer.close()

        self._server = await asyncio.start_server(answer, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()


async def _exchange(proxy_url: str, request: bytes) -> bytes:
    host, port = proxy_url.rsplit("/", 1)[1].split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    writer.write(request)
    await writer.drain()
    data = await asyncio.wait_for(reader.read(65536), 5)
    writer.close()
    return data


def run(scenario: Callable[[], Awaitable[None]]) -> None:
    asyncio.run(scenario())


def test_allowed_requests_pass_one_per_connection_and_refused_ones_never_connect() -> None:
    async def scenario() -> None:
        async with Upstream() as good, Upstream() as bad:
            refused: list[str] = []
            policy = OriginPolicy((f"http://127.0.0.1:{good.port}",))
            proxy = GuardProxy(lambda: policy, refused.append)
            url = await proxy.start()
            head = f"GET http://127.0.0.1:{good.port}/a?b=1 HTTP/1.1\r\n"
            answer = await _exchange(url, f"{head}Proxy-Connection: keep-alive\r\n\r\n".encode())
            assert answer.startswith(b"HTTP/1.1 200") and b"Connection: close" in answer
            assert good.received[0].startswith(b"GET /a?b=1 HTTP/1.1")  # origin-form upstream
            assert b"Connection: close" in good.received[0] and b"Proxy-" not in good.received[0]
            for request in (
                f"GET http://127.0.0.1:{bad.port}/x HTTP/1.1\r\n\r\n",
                f"GET http://2130706433:{bad.port}/x HTTP/1.1\r\n\r\n",
                f"CONNECT 127.0.0.1:{bad.port} HTTP/1.1\r\n\r\n",
            ):
                answer = await _exchange(url, request.encode())
                assert answer.startswith(b"HTTP/1.1 403") and b"origin guard" in answer
            assert bad.received == [] and len(refused) == 3
            await proxy.close()

    run(scenario)


def test_an_allowed_tunnel_carries_bytes_both_ways() -> None:
    async def scenario() -> None:
        async with Upstream() as good:
            policy = OriginPolicy((f"http://127.0.0.1:{good.port}",))  # a ws:// tunnel
            proxy = GuardProxy(lambda: policy, lambda url: None)
            host, port = (await proxy.start()).rsplit("/", 1)[1].split(":")
            reader, writer = await asyncio.open_connection(host, int(port))
            writer.write(f"CONNECT 127.0.0.1:{good.port} HTTP/1.1\r\n\r\n".encode())
            assert (await reader.readuntil(b"\r\n\r\n")).startswith(b"HTTP/1.1 200")
            writer.write(b"GET /through HTTP/1.1\r\n\r\n")
            assert (await asyncio.wait_for(reader.read(1000), 5)).endswith(b"ok")
            assert good.received == [b"GET /through HTTP/1.1\r\n\r\n"]
            writer.close()
            await proxy.close()

    run(scenario)


def test_a_name_that_resolves_to_a_private_address_is_refused() -> None:
    async def resolve(host: str, port: int) -> list[str]:
        return ["169.254.169.254"] if host == "rebind.test" else ["93.184.216.34"]

    async def scenario() -> None:
        refused: list[str] = []
        proxy = GuardProxy(lambda: OriginPolicy(("*",)), refused.append, resolve)
        url = await proxy.start()
        answer = await _exchange(url, b"GET http://rebind.test/latest HTTP/1.1\r\n\r\n")
        assert answer.startswith(b"HTTP/1.1 403") and b"169.254.169.254" in answer
        assert refused == ["http://rebind.test/latest"]
        await proxy.close()

    run(scenario)


def test_an_unreachable_allowed_host_gets_a_502_saying_why() -> None:
    async def scenario() -> None:
        async with Upstream() as gone:
            port = gone.port
        proxy = GuardProxy(lambda: OriginPolicy((f"http://127.0.0.1:{port}",)), lambda u: None)
        answer = await _exchange(
            await proxy.start(), f"GET http://127.0.0.1:{port}/ HTTP/1.1\r\n\r\n".encode()
        )
        assert answer.startswith(b"HTTP/1.1 502") and b"cannot connect" in answer
        await proxy.close()

    run(scenario)
