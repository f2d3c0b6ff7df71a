"""What a run is doing while no node has finished: on a terminal, a live status line (which nodes
run, for how long, how many tokens streamed); elsewhere (a service's log), the same as a whole
line every LOG_INTERVAL_S seconds (`LogLines`), so a long wait is never silent.

It is a LangChain callback handler: LangGraph reports each node's start and end as a chain run
whose name equals its `langgraph_node` metadata, and a streaming chat model reports each token
(`on_llm_new_token`). Chat models stream inside `invoke` when a handler has the streaming
protocol's `tap_output_iter`/`tap_output_aiter` (what LangGraph's own "messages" stream mode
uses); this handler has them, so tokens arrive while the graph streams only "updates" and each
node keeps running in the main thread, where Ctrl-C stops it at once (with stream_mode
"messages", LangGraph moves nodes to a worker thread and Ctrl-C waits for the node to end).
A background thread redraws the line a few times a second, so a long prompt evaluation or a
tool call still shows the seconds passing.

The line is for a TTY stderr: progress lines and this line share stderr, and `paused()` clears
the line before a progress line is printed; stdout (the answer, the JSON) is never written to.
LogLines has no streaming protocol, so a run logged elsewhere calls its models as before.
"""

from __future__ import annotations

import shutil
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import contextmanager
from typing import Any, Self, TextIO
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler

CLEAR = "\r\x1b[K"  # back to column 0, erase to the end of the line
LOG_INTERVAL_S = 30.0  # a log's line while a node runs: often enough to show life, not noise


class RunningNodes(BaseCallbackHandler):
    """Tracks running graph nodes and streamed tokens; `draw` shows them on `out` every
    `interval` seconds from `start` to `stop`."""

    def __init__(
        self,
        out: TextIO,
        *,
        interval: float = 0.25,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.out = out
        self.interval = interval
        self.clock = clock
        self.tokens = 0  # since the oldest running node started
        self._running: dict[UUID, tuple[str, float]] = {}
        self._lock = threading.RLock()
        self._drawn = False
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # -- callbacks (called from whichever thread runs the node) ---------------------------------
    def on_chain_start(
        self,
        serialized: dict[str, Any] | None,
        inputs: Any,
        *,
        run_id: UUID,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        node = (metadata or {}).get("langgraph_node")
        if node and kwargs.get("name") == node:  # the node itself, not a runnable inside it
            with self._lock:
                if not self._running:
                    self.tokens = 0
                self._running[run_id] = (node, self.clock())

    def on_chain_end(self, outputs: Any, *, run_id: UUID, **kwargs: Any) -> None:
        with self._lock:
            self._running.pop(run_id, None)

    def on_chain_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        with self._lock:
            self._running.pop(run_id, None)

    def on_llm_new_token(self, token: Any, **kwargs: Any) -> None:
        with self._lock:
            self.tokens += 1

    # -- drawing ----------------------------------------------------------------------------------
    def render(self) -> str:
        """The line's text, e.g. `… execute_task › model  12s  143 tokens`; '' when idle."""
        with self._lock:
            running = sorted(self._running.values(), key=lambda item: item[1])
            tokens = self.tokens
        if not running:
            return ""
        names = list(dict.fromkeys(name for name, _ in running))
        elapsed = self.clock() - running[0][1]
        line = f"… {' › '.join(names)}  {elapsed:.0f}s"
        return line + (f"  {tokens} tokens" if tokens else "")

    def draw(self) -> None:
        raise NotImplementedError

    def clear(self) -> None:
        """Take back what `draw` showed (nothing to take back by default)."""

    @contextmanager
    def paused(self) -> Iterator[None]:
        """Clear the line while the caller prints whole lines to the same stream."""
        with self._lock:
            self.clear()
            yield

    def _loop(self) -> None:
        while not self._stop.wait(self.interval):
            self.draw()

    def start(self) -> Self:
        self._thread = threading.Thread(target=self._loop, name="live-line", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop redrawing and erase the line; bounded, so it never delays the exit."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=1)
        self.clear()


class LiveLine(RunningNodes):
    """The status on one line of a terminal, redrawn a few times a second."""

    # The streaming protocol (langchain_core.tracers._streaming): its presence makes chat
    # models stream their tokens inside invoke(); the output passes through untouched.
    def tap_output_iter(self, run_id: UUID, output: Iterator[Any]) -> Iterator[Any]:
        return output

    def tap_output_aiter(self, run_id: UUID, output: AsyncIterator[Any]) -> AsyncIterator[Any]:
        return output

    def draw(self) -> None:
        """Redraw the line now (cut to the terminal's width so it never wraps)."""
        width = shutil.get_terminal_size((80, 24)).columns - 1
        with self._lock:
            text = self.render()[:width]
            if text or self._drawn:
                self.out.write(CLEAR + text)
                self.out.flush()
            self._drawn = bool(text)

    def clear(self) -> None:
        with self._lock:
            if self._drawn:
                self.out.write(CLEAR)
                self.out.flush()
                self._drawn = False


class LogLines(RunningNodes):
    """The status as a whole line every `interval` seconds while a node runs, for a stderr
    that is no terminal (a pipe, a service's log): `… aggregate_results  60s`."""

    def __init__(self, out: TextIO, *, interval: float = LOG_INTERVAL_S, **kwargs: Any) -> None:
        super().__init__(out, interval=interval, **kwargs)

    def draw(self) -> None:
        with self._lock:
            text = self.render()
            if text:
                self.out.write(f"{text}\n")
                self.out.flush()
