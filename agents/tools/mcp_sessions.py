"""Open sessions to MCP servers on an event loop of their own, for the executor's sync tools.

    sessions = McpSessions(connections)      # {server name: langchain-mcp-adapters Connection}
    tools = sessions.start()                 # the servers' tools, named "<server>_<tool>"
    text = sessions.call("facts_lookup", {"name": "..."})
    sessions.close()                         # every server process ends here

The sessions are entered and left in one task on one loop (anyio's cancel scopes require it),
on a daemon thread, so the executor's synchronous tool calls can use them from any thread. A
stdio server's stderr goes to a temporary file, not the user's terminal: when the server fails
to start, its last lines are part of the one error that names it; so are its stray stdout lines
and, for a URL, the HTTP error, whatever anyio's task groups wrapped it in. Stdio servers run
through agents.tools.mcp_stdio, which records their process groups: while servers run, an
atexit hook (`kill`) ends them at once, so a forced exit (Ctrl-C, SIGTERM) leaves none behind.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import logging
import tempfile
import threading
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from typing import IO, Any

from langchain_core.tools import BaseTool

from agents.tools.mcp_stdio import ServerGroups, StdoutNoise, stdio_streams

log = logging.getLogger(__name__)
START_S = 30.0  # initialize + list tools, per server
CALL_S = 120.0  # one tool call
CLOSE_S = 10.0  # stdio servers get 2 s after stdin closes, 2 after SIGTERM, 2 after SIGKILL


class McpServerUnavailable(RuntimeError):
    """An MCP server did not start or answer (exit 3 through cli.errors); names the server."""


def _leaves(exc: BaseException) -> list[BaseException]:
    """The errors inside (nested) exception groups, which anyio's task groups raise."""
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for inner in exc.exceptions for leaf in _leaves(inner)]
    return [exc]


def _describe(exc: BaseException) -> str:
    leaves = _leaves(exc)
    real = [e for e in leaves if not isinstance(e, asyncio.CancelledError)]
    leaf = (real or leaves)[0]
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
async def _session(
    connection: dict[str, Any], errlog: IO[str] | None, groups: ServerGroups, noise: StdoutNoise
) -> AsyncIterator[Any]:
    """A ClientSession, not yet initialized; stdio servers write their stderr to `errlog`."""
    from langchain_mcp_adapters.sessions import create_session
    from mcp import ClientSession

    if connection["transport"] != "stdio":
        async with create_session(connection) as session:  # type: ignore[arg-type]
            yield session
        return
    assert errlog is not None
    async with stdio_streams(connection, errlog, groups, noise) as (read, write):
        async with ClientSession(read, write) as session:
            yield session


class McpSessions:
    """One session per configured server, open from `start()` to `close()`.

    `start_s` bounds each server's start (initialize and list tools); `reported` holds the
    servers whose stray stdout was already reported (share one per run to report it once)."""

    def __init__(
        self,
        connections: dict[str, dict[str, Any]],
        *,
        start_s: float = START_S,
        reported: set[str] | None = None,
    ) -> None:
        self.connections = connections
        self.start_s = start_s
        self.reported = reported if reported is not None else set()
        self.groups = ServerGroups()  # the stdio servers' processes, for kill()
        self.tools: dict[str, BaseTool] = {}  # adapter tools, by prefixed name
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._task: asyncio.Task[None] | None = None
        self._stop: asyncio.Event | None = None
        self._ended: str | None = None  # why the sessions ended before close() asked
        self._opening: tuple[str, IO[str] | None, StdoutNoise] | None = None
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
            # before the first process starts: an exit that cannot wait still ends it
            atexit.register(self.kill)
            thread = threading.Thread(
                target=self._run, args=(loop, ready), name="mcp-sessions", daemon=True
            )
            thread.start()
            # each server's own limit (start_s) fires first; this one only bounds a hang
            # beyond it, such as a close that does not finish
            limit = self.start_s * max(1, len(self.connections)) + CLOSE_S
            try:
                ready.result(timeout=limit)
            except BaseException as exc:  # its failure, a hang, Ctrl-C or SIGTERM
                self._abandon(loop, thread)
                if isinstance(exc, concurrent.futures.TimeoutError):
                    raise self._hung(limit) from None
                raise
            self._loop, self._thread = loop, thread
            return list(self.tools.values())

    def _abandon(self, loop: asyncio.AbstractEventLoop, thread: threading.Thread) -> None:
        """Stop a start that failed or was interrupted: servers killed, the loop's task
        cancelled, its thread given CLOSE_S to leave."""
        self.groups.kill()
        task = self._task
        if task is not None and not loop.is_closed():
            loop.call_soon_threadsafe(task.cancel)
        thread.join(CLOSE_S)
        if not thread.is_alive():
            loop.close()
        atexit.unregister(self.kill)

    def _hung(self, limit: float) -> McpServerUnavailable:
        name = self._opening[0] if self._opening else "?"
        where = self._where(name)
        return McpServerUnavailable(f"MCP server {name!r} ({where}) did not start in {limit:.0f} s")

    def _where(self, name: str) -> str:
        connection = self.connections.get(name, {})
        return str(connection.get("command") or connection.get("url") or "")

    def _run(self, loop: asyncio.AbstractEventLoop, ready: concurrent.futures.Future) -> None:
        asyncio.set_event_loop(loop)
        self._task = loop.create_task(self._serve(ready))
        try:
            loop.run_until_complete(self._task)
        except BaseException as exc:  # reported through `ready` when starting, else logged
            if not ready.done():  # the error naming the server, out of anyio's groups
                ready.set_exception(self._unavailable(exc))
            else:
                self._ended = _describe(exc)
                log.warning("MCP sessions ended with an error: %s", self._ended)
        finally:
            # calls still waiting on this loop get an answer (cancelled), not a timeout
            pending = asyncio.all_tasks(loop)
            for task in pending:
                task.cancel()
            loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))

    def _unavailable(self, exc: BaseException) -> BaseException:
        named = [e for e in _leaves(exc) if isinstance(e, McpServerUnavailable)]
        if named:
            return named[0]
        if self._opening is None or isinstance(exc, asyncio.CancelledError):
            return exc
        name, errlog, noise = self._opening
        return McpServerUnavailable(
            f"MCP server {name!r} ({self._where(name)}) did not start: "
            f"{_describe(exc)}{_tail(errlog)}{noise.hint()}"
        )

    async def _serve(self, ready: concurrent.futures.Future) -> None:
        """Open every session, report ready, hold them until close() asks, then leave them
        in the same task (as anyio requires)."""
        self._stop = asyncio.Event()
        async with AsyncExitStack() as stack:
            for name, connection in self.connections.items():
                await self._open(stack, name, connection)
            self._opening = None
            ready.set_result(None)
            await self._stop.wait()

    async def _open(self, stack: AsyncExitStack, name: str, connection: dict[str, Any]) -> None:
        import anyio
        from langchain_mcp_adapters.tools import load_mcp_tools

        errlog = None
        if connection["transport"] == "stdio":  # made in a thread: file calls block a loop
            made = await asyncio.to_thread(tempfile.TemporaryFile, "w+", encoding="utf-8")
            errlog = stack.enter_context(made)
        noise = StdoutNoise(name, self.reported)
        self._opening = (name, errlog, noise)
        try:
            session = await stack.enter_async_context(
                _session(connection, errlog, self.groups, noise)
            )
            with anyio.fail_after(self.start_s):
                await session.initialize()
                tools = await load_mcp_tools(session, server_name=name, tool_name_prefix=True)
        except BaseException as exc:
            if isinstance(exc, asyncio.CancelledError):
                raise
            why = (
                f"no answer in {self.start_s:g} s"
                if isinstance(exc, TimeoutError)
                else _describe(exc)
            )
            raise McpServerUnavailable(
                f"MCP server {name!r} ({self._where(name)}) did not start: "
                f"{why}{_tail(errlog)}{noise.hint()}"
            ) from None
        self.tools.update({tool.name: tool for tool in tools})

    def call(self, name: str, args: dict[str, Any]) -> Any:
        """Call tool `name` (its prefixed name) and wait for its content."""
        self.start()
        loop = self._loop
        if loop is None or self._ended is not None or loop.is_closed():
            raise McpServerUnavailable(f"the MCP servers stopped: {self._ended or 'closed'}")
        future = asyncio.run_coroutine_threadsafe(self.tools[name].ainvoke(args), loop)
        try:
            return future.result(timeout=CALL_S)
        except concurrent.futures.CancelledError:
            raise McpServerUnavailable(
                f"the MCP tool {name} got no answer: its server stopped ({self._ended or 'closed'})"
            ) from None
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise TimeoutError(f"the MCP tool {name} did not answer in {CALL_S:.0f} s") from None

    def kill(self) -> None:
        """End every server process now, without the close sequence: what an exit that cannot
        wait runs (it is registered with atexit while servers run)."""
        self.groups.kill()

    def close(self) -> None:
        """End every session and its server process; safe to call more than once."""
        with self._lock:
            loop, thread, stop = self._loop, self._thread, self._stop
            self._loop, self._thread = None, None
        if loop is None or thread is None or stop is None:
            return
        if not loop.is_closed():
            loop.call_soon_threadsafe(stop.set)
        thread.join(CLOSE_S)
        if thread.is_alive():
            log.warning("MCP sessions did not close in %.0f s; their servers are killed", CLOSE_S)
        else:
            loop.close()
        self.groups.kill()  # none is left after a close that finished
        atexit.unregister(self.kill)
