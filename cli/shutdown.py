"""Leave the process promptly once a command is done: nothing at exit delays the prompt.

Python's own exit tears down every module and object; with torch and the embedding model
loaded that took 6-10 s on this machine after the answer was printed (measured: main()
returned, atexit hooks done in 0.2 s, process gone 9.7 s later). Here the exit runs the same
cleanups with bounds, then ends the process without the slow teardown:

1. flush stdout and stderr (the answer is out);
2. stop idle thread pools and wait, at most THREADS_WAIT_S, for non-daemon threads still
   working (e.g. a memory write), so no acknowledged work is cut off; a stuck one (a hung
   socket) is named on stderr;
3. run the atexit hooks (browser close, log flush), at most ATEXIT_WAIT_S;
4. os._exit(code).

Checkpoints are already durable (the CLI streams with durability="sync") and SQLite
connections are closed by the commands, so nothing is lost by skipping the teardown.
"""

from __future__ import annotations

import atexit
import os
import signal
import socket
import sys
import threading
import time
from contextlib import contextmanager

THREADS_WAIT_S = 5.0
ATEXIT_WAIT_S = 5.0

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import NoReturn


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe (e.g. `| head`): nothing more to say
            pass


def _busy_threads() -> list[threading.Thread]:
    me = threading.current_thread()
    return [t for t in threading.enumerate() if t is not me and not t.daemon and t.is_alive()]


def _run_threading_exit_hooks() -> None:
    # What Python's exit does before joining threads: e.g. concurrent.futures tells its idle
    # pool workers to stop (they are non-daemon and would otherwise be waited for in vain).
    for hook in list(getattr(threading, "_threading_atexits", [])):
        hook()


def wait_for_threads(timeout_s: float) -> list[str]:
    """Let non-daemon threads finish until `timeout_s` passes; the names of those still alive."""
    deadline = time.monotonic() + timeout_s
    helper = threading.Thread(target=_run_threading_exit_hooks, name="thread-hooks", daemon=True)
    helper.start()
    helper.join(timeout_s)
    for thread in _busy_threads():
        thread.join(max(0.0, deadline - time.monotonic()))
    return [t.name for t in _busy_threads()]


def run_atexit_hooks(timeout_s: float) -> bool:
    """Run the atexit hooks in a helper thread; False if they did not finish in time."""
    runner = threading.Thread(target=atexit._run_exitfuncs, name="atexit-hooks", daemon=True)
    runner.start()
    runner.join(timeout_s)
    return not runner.is_alive()


def exit_promptly(
    code: int, *, threads_wait_s: float = THREADS_WAIT_S, atexit_wait_s: float = ATEXIT_WAIT_S
) -> NoReturn:
    """Flush, finish pending work within bounds, run the atexit hooks, and exit with `code`."""
    _flush()
    stuck = wait_for_threads(threads_wait_s)
    if stuck:
        print(
            f"warning: stopped thread(s) still running {threads_wait_s:.0f} s after the command "
            f"finished: {', '.join(stuck)}",
            file=sys.stderr,
        )
    if not run_atexit_hooks(atexit_wait_s):
        print(f"warning: exit hooks did not finish within {atexit_wait_s:.0f} s", file=sys.stderr)
    _flush()
    os._exit(code)


class Terminated(KeyboardInterrupt):
    """SIGTERM, taken as Ctrl-C is (the same cleanup, one `error:` line), but reported as
    `terminated by SIGTERM` with exit 143 (cli.errors): 128 + the signal's number, what a
    process ended by the signal itself reports, so a supervisor sees its own stop."""


def _terminated(signum: int, frame: object) -> None:
    raise Terminated


@contextmanager
def terminate_as_interrupt() -> Iterator[None]:
    """While the context is active, SIGTERM raises Terminated in the main thread, so the paths
    that end a run on Ctrl-C (closing what it opened, the atexit hooks, PromptInterrupts'
    watchdog) run for SIGTERM too; its default action ends the process at once, leaving
    behind any child process that ignores its stdin closing (an MCP server, cli.run). Only a
    SIGTERM left at its default is taken: a parent that ignores it, or a handler set by the
    program embedding the CLI, is kept."""
    usable = threading.current_thread() is threading.main_thread()
    if not usable or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        yield
        return
    signal.signal(signal.SIGTERM, _terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


class PromptInterrupts:
    """Ctrl-C ends the run within `grace_s` even while worker threads are busy.

    LangGraph runs parallel nodes in a thread pool and, on Ctrl-C, waits for them to finish
    (measured: 30 s for two 30 s nodes; minutes on the embedded model). Worse, the kernel may
    deliver SIGINT to a worker thread, and then Python's handler only runs once the main
    thread wakes up, after the nodes are done. So, while this context is active, a watcher
    thread reads the signal numbers Python's C handler writes to a wakeup socket (from any
    thread, at once): the first Ctrl-C starts a watchdog (KeyboardInterrupt still reaches the
    main thread as usual, and a node running there stops at once); if control is still inside
    the context `grace_s` later, `on_force(stop)` runs (print the error line for `stop`, close
    the browser) and the process exits with 130. A second Ctrl-C does that at once. SIGTERM
    counts as a Ctrl-C while terminate_as_interrupt is active (else it ends the process by
    itself); when it came first, `stop` is a Terminated and the exit code 143.
    Finished steps are already checkpointed (durability "sync"), so `--resume` continues from
    the last one. A process started with SIGINT ignored keeps ignoring it.
    """

    def __init__(self, on_force: Callable[[KeyboardInterrupt], None], grace_s: float = 3.0) -> None:
        self.on_force = on_force
        self.grace_s = grace_s
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None
        self._signal = signal.SIGINT  # the first one received: it decides the exit code
        self._active = False
        self._writer: socket.socket | None = None
        self._previous_fd = -1

    def _force(self) -> None:
        terminated = self._signal == signal.SIGTERM
        try:
            self.on_force(Terminated() if terminated else KeyboardInterrupt())
        finally:
            _flush()
            os._exit(128 + self._signal)  # 130 or 143, as cli.errors reports them

    def _interrupted(self, signum: signal.Signals) -> None:
        with self._lock:
            if not self._active:
                return
            if self._timer is None:
                self._signal = signum
                self._timer = threading.Timer(self.grace_s, self._force)
                self._timer.daemon = True
                self._timer.start()
                return
        self._force()  # the second Ctrl-C

    def _watch(self, reader: socket.socket) -> None:
        with reader:
            while data := reader.recv(64):  # b"" once the context closed the writing end
                stops = [n for n in data if n in (signal.SIGINT, signal.SIGTERM)]
                if stops:  # SIGTERM only while terminate_as_interrupt is active
                    self._interrupted(signal.Signals(stops[0]))

    def __enter__(self) -> PromptInterrupts:
        usable = threading.current_thread() is threading.main_thread()
        if not usable or signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
            return self
        reader, writer = socket.socketpair()
        writer.setblocking(False)
        self._previous_fd = signal.set_wakeup_fd(writer.fileno(), warn_on_full_buffer=False)
        self._writer, self._active = writer, True
        threading.Thread(target=self._watch, args=(reader,), name="ctrl-c", daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        with self._lock:  # control is back: the normal error path takes over
            self._active = False
            if self._timer is not None:
                self._timer.cancel()
        if self._writer is not None:
            signal.set_wakeup_fd(self._previous_fd)
            self._writer.close()  # the watcher reads EOF and ends
