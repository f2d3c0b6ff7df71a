"""Open sessions to MCP servers on an event loop of their own, for the executor's sync tools.

    sessions = McpSessions(connections)      # {server name: langchain-mcp-adapters Connection}
    tools = sessions.start()                 # the servers' tools, named "<server>_<tool>"
    text = sessions.call("facts_lookup", {"name": "..."})
    sessions.close()                         # every server process ends here

The sessions are entered and left in one task on one loop (anyio's cancel scopes require it),
on a daemon thread, so the executor's synchronous tool calls can use them from any thread. A
stdio server's stderr goes to a temporary file, not the user's terminal: when the server fails
to start, its last lines are part of the one error that names it.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import logging
import tempfile
import threading
from contextlib import AsyncExitStack, asynccontextmanager
from typing import IO, Any

from langchain_core.tools import BaseTool

log = logging.getLogger(__name__)
START_S = 30.0  # initialize + list tools, per server
CALL_S = 120.0  # one tool call
CLOSE_S = 10.0  # stdio servers get 2 s after stdin closes, then SIGTERM, then SIGKILL


class McpServerUnavailable(RuntimeError):
    """An MCP server did not start or answer (exit 3 through cli.errors); names the server."""


def _leaves(exc: BaseException) -> list[BaseException]:
    """The errors inside (nested) exception groups, which anyio's task groups raise."""
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for inner in exc.exceptions for leaf in _leaves(inner)]
    return [exc]


def _describe(exc: BaseException) -> str:
    leaf = _leaves(exc)[0]
    text = str(leaf).strip()
    return f"{type(leaf).__name__}: {text}" if text else type(leaf).__name__


def _tail(errlog: IO[str] | None, lines: int = 3) -> str:
    if errlog is None:
        return ""
    try:
        errlog.seek(0)
        last = [line.strip() for line in errlog.read().splitlines() if line.strip()][-lines:]
    except (OSError, ValueError):
        return ""
    return f" (its stderr: {' | '.join(last)})" if last else ""


@asynccontextmanager
async def _session(connection: dict[str, Any], errlog: IO[str] | None):
    """An initialized ClientSession; stdio servers write their stderr to `errlog`."""
    from langchain_mcp_adapters.sessions import create_session
    from mcp import ClientSession

    if connection["transport"] != "stdio":
        async with create_session(connection) as session:  # type: ignore[arg-type]
            yield session
        return
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=connection["command"],
        args=connection.get("args", []),
        env=connection.get("env"),
        cwd=connection.get("cwd"),
    )
    async with stdio_client(params, errlog=errlog) as (read, write):  # type: ignore[arg-type]
        async with ClientSession(read, write) as session:
            yield session


class McpSessions:
    """One session per configured server, open from `start()` to `close()`."""

    def __init__(self, connections: dict[str, dict[str, Any]]) -> None:
        self.connections = connections
        self.tools: dict[str, BaseTool] = {}  # adapter tools, by prefixed name
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._stop: asyncio.Event | None = None
        self._lock = threading.Lock()

    @property
    def started(self) -> bool:
        return self._thread is not None

    def start(self) -> list[BaseTool]:
        """Start every server and load its tools; McpServerUnavailable names one that fails
        (the others are closed again before it is raised)."""
        with self._lock:
            if self._thread is not None:
                return list(self.tools.values())
            loop = asyncio.new_event_loop()
            ready: concurrent.futures.Future[None] = concurrent.futures.Future()
            thread = threading.Thread(
                target=self._run, args=(loop, ready), name="mcp-sessions", daemon=True
            )
            thread.start()
            try:
                ready.result(timeout=START_S * max(1, len(self.connections)) + 5)
            except BaseException:
                thread.join(CLOSE_S)  # the sessions opened before the failure are closed
                if not thread.is_alive():
                    loop.close()
                raise
            self._loop, self._thread = loop, thread
            atexit.register(self.close)  # a forced exit still ends the server processes
            return list(self.tools.values())

    def _run(self, loop: asyncio.AbstractEventLoop, ready: concurrent.futures.Future) -> None:
        asyncio.set_event_loop(loop)
        try:
            loop.run_until_complete(self._serve(ready))
        except BaseException as exc:  # reported through `ready` when starting, else logged
            if not ready.done():  # the error naming the server, out of anyio's groups
                named = [e for e in _leaves(exc) if isinstance(e, McpServerUnavailable)]
                ready.set_exception(named[0] if named else exc)
            else:
                log.warning("MCP sessions ended with an error: %s", _describe(exc))

    async def _serve(self, ready: concurrent.futures.Future) -> None:
        """Open every session, report ready, hold them until close() asks, then leave them
        in the same task (as anyio requires)."""
        self._stop = asyncio.Event()
        async with AsyncExitStack() as stack:
            for name, connection in self.connections.items():
                await self._open(stack, name, connection)
            ready.set_result(None)
            await self._stop.wait()

    async def _open(self, stack: AsyncExitStack, name: str, connection: dict[str, Any]) -> None:
        import anyio
        from langchain_mcp_adapters.tools import load_mcp_tools

        errlog = None
        if connection["transport"] == "stdio":
            errlog = stack.enter_context(tempfile.TemporaryFile("w+", encoding="utf-8"))
        try:
            session = await stack.enter_async_context(_session(connection, errlog))
            with anyio.fail_after(START_S):
                await session.initialize()
                tools = await load_mcp_tools(session, server_name=name, tool_name_prefix=True)
        except BaseException as exc:
            if isinstance(exc, asyncio.CancelledError):
                raise
            where = connection.get("command") or connection.get("url")
            why = (
                f"no answer in {START_S:.0f} s" if isinstance(exc, TimeoutError) else _describe(exc)
            )
            raise McpServerUnavailable(
                f"MCP server {name!r} ({where}) did not start: {why}{_tail(errlog)}"
            ) from None
        self.tools.update({tool.name: tool for tool in tools})

    def call(self, name: str, args: dict[str, Any]) -> Any:
        """Call tool `name` (its prefixed name) and wait for its content."""
        self.start()
        assert self._loop is not None
        future = asyncio.run_coroutine_threadsafe(self.tools[name].ainvoke(args), self._loop)
        try:
            return future.result(timeout=CALL_S)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise TimeoutError(f"the MCP tool {name} did not answer in {CALL_S:.0f} s") from None

    def close(self) -> None:
        """End every session and its server process; safe to call more than once."""
        with self._lock:
            loop, thread, stop = self._loop, self._thread, self._stop
            self._loop, self._thread = None, None
        if loop is None or thread is None or stop is None:
            return
        atexit.unregister(self.close)
        loop.call_soon_threadsafe(stop.set)
        thread.join(CLOSE_S)
        if thread.is_alive():
            log.warning("MCP sessions did not close in %.0f s", CLOSE_S)
        else:
            loop.close()
