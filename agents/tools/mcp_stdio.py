"""The stdio transport to an MCP server: the server in a process group of its own, its stdout
held to the protocol, and its processes ended however the run ends.

    groups = ServerGroups()
    noise = StdoutNoise("facts", reported=set())
    async with stdio_streams(connection, errlog, groups, noise) as (read, write):
        async with ClientSession(read, write) as session: ...
    groups.kill()           # from any thread, at once: what an exit that cannot wait calls

Written after mcp's own `stdio_client` (mcp 1.30), which it replaces because that one
- logs a full traceback for every stdout line that is not a JSON-RPC message, so a server that
  prints a banner fills stderr (here such lines are dropped and the first is reported once);
- ends its task group with an unhandled UnicodeDecodeError on a stdout byte that is not UTF-8
  (its StdioServerParameters.encoding_error_handler defaults to "strict"; here such bytes
  become U+FFFD and the line is read like any other);
- keeps the process to itself, so an exit that cannot wait for the close sequence (a second
  Ctrl-C, SIGTERM) could not end a server that ignores SIGTERM and its stdin closing.
The close sequence is the protocol's, as there: close stdin, wait, SIGTERM, wait, SIGKILL; then
whatever the server left in its process group is killed too.
"""

from __future__ import annotations

import logging
import os
import signal
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import IO, Any

import anyio
import anyio.lowlevel
from anyio.abc import ByteReceiveStream, Process

log = logging.getLogger(__name__)
EXIT_WAIT_S = 2.0  # after stdin closes, then again after SIGTERM and after SIGKILL
# One message per line; a line this long is no protocol message worth holding in memory.
MAX_LINE_BYTES = 256 * 1024 * 1024


class ServerGroups:
    """The process groups of the stdio servers started and not yet ended (a server is started
    as the leader of a new session, so its group id is its pid)."""

    def __init__(self) -> None:
        self._pids: set[int] = set()
        self._lock = threading.Lock()

    def add(self, pid: int) -> None:
        with self._lock:
            self._pids.add(pid)

    def discard(self, pid: int) -> None:
        with self._lock:
            self._pids.discard(pid)

    def pids(self) -> list[int]:
        with self._lock:
            return sorted(self._pids)

    def kill(self) -> None:
        """SIGKILL every recorded group now: no waiting, safe from any thread."""
        for pid in self.pids():
            _signal_group(pid, signal.SIGKILL)


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):  # gone already (or its pid reused by root)
        pass


class StdoutNoise:
    """What a server wrote on stdout that is not an MCP message: dropped, counted, the first
    line kept for the error that names a server that did not start, and reported once as a
    warning (once per run when runs share `reported`)."""

    def __init__(self, server: str, reported: set[str]) -> None:
        self.server, self.reported = server, reported
        self.count = 0
        self.first: str | None = None

    def add(self, line: str) -> None:
        self.count += 1
        if self.first is not None:
            return
        self.first = " ".join(line.split())[:200]
        if self.server not in self.reported:
            self.reported.add(self.server)
            log.warning(
                "MCP server %r wrote on stdout what is not an MCP message, e.g. %r; such lines "
                "are ignored (a server must keep stdout for the protocol and log to stderr)",
                self.server,
                self.first,
            )

    def hint(self) -> str:
        if not self.count:
            return ""
        return f" (its stdout held {self.count} non-MCP line(s), the first: {self.first!r})"


async def _lines(stream: ByteReceiveStream, noise: StdoutNoise) -> AsyncIterator[str]:
    """The stream's lines; one over MAX_LINE_BYTES ends it (reported as noise)."""
    buffer = bytearray()
    async for chunk in stream:
        scanned = len(buffer)  # only the new chunk is searched: a long line costs linear time
        buffer += chunk
        start = 0
        while (end := buffer.find(b"\n", scanned)) >= 0:
            yield buffer[start:end].decode("utf-8", "replace")
            start = scanned = end + 1
        del buffer[:start]
        if len(buffer) > MAX_LINE_BYTES:
            noise.add(f"[a line over {MAX_LINE_BYTES:,} bytes; stopped reading]")
            return
    if buffer.strip():
        yield buffer.decode("utf-8", "replace")


async def _end(process: Process) -> None:
    """Close stdin, then wait, SIGTERM, wait, SIGKILL, until the process exits; then kill what
    is left of its group."""
    if process.stdin is not None:
        try:
            await process.stdin.aclose()
        except (OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
            pass
    for sig in (None, signal.SIGTERM, signal.SIGKILL):
        if sig is not None:
            _signal_group(process.pid, sig)
        with anyio.move_on_after(EXIT_WAIT_S):
            await process.wait()
            break
    _signal_group(process.pid, signal.SIGKILL)


async def _read_stdout(process: Process, send: Any, noise: StdoutNoise) -> None:
    """Each protocol message on the server's stdout to `send`; other lines to `noise`."""
    from mcp import types
    from mcp.shared.message import SessionMessage
    from pydantic import ValidationError

    assert process.stdout is not None
    try:
        async with send:
            async for line in _lines(process.stdout, noise):
                if not line.strip():
                    continue
                try:
                    message = types.JSONRPCMessage.model_validate_json(line)
                except ValidationError:
                    noise.add(line)
                    continue
                await send.send(SessionMessage(message))
    except (anyio.ClosedResourceError, anyio.BrokenResourceError):  # the session or server left
        await anyio.lowlevel.checkpoint()


async def _write_stdin(process: Process, receive: Any) -> None:
    """Each message from `receive` to the server's stdin, one JSON line each."""
    assert process.stdin is not None
    try:
        async with receive:
            async for message in receive:
                body = message.message.model_dump_json(by_alias=True, exclude_none=True)
                await process.stdin.send((body + "\n").encode("utf-8"))
    except (anyio.ClosedResourceError, anyio.BrokenResourceError):  # the session or server left
        await anyio.lowlevel.checkpoint()


@asynccontextmanager
async def stdio_streams(
    connection: dict[str, Any], errlog: IO[str], groups: ServerGroups, noise: StdoutNoise
) -> AsyncIterator[tuple[Any, Any]]:
    """The (read, write) streams a ClientSession takes, to a server started from `connection`
    (command, args, env, cwd) with its stderr in `errlog`; the server is ended on leaving."""
    from mcp.client.stdio import get_default_environment
    from mcp.shared.message import SessionMessage

    env = get_default_environment()
    if connection.get("env") is not None:
        env.update(connection["env"])
    process = await anyio.open_process(
        [connection["command"], *connection.get("args", [])],
        env=env,
        cwd=connection.get("cwd"),
        stderr=errlog,
        start_new_session=True,  # its own group: signals reach its children, not ours
    )
    groups.add(process.pid)
    read_send, read_recv = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_send, write_recv = anyio.create_memory_object_stream[SessionMessage](0)
    try:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(_read_stdout, process, read_send, noise)
            tasks.start_soon(_write_stdin, process, write_recv)
            try:
                yield read_recv, write_send
            finally:
                with anyio.CancelScope(shield=True):  # a cancelled run still ends its server
                    await _end(process)
                    with anyio.move_on_after(EXIT_WAIT_S):  # its pipes (and reaping it)
                        await process.aclose()
                tasks.cancel_scope.cancel()
    finally:
        groups.discard(process.pid)
        read_recv.close()
        write_send.close()
