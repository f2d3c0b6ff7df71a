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
import sys
import threading
import time

THREADS_WAIT_S = 5.0
ATEXIT_WAIT_S = 5.0

TYPE_CHECKING = False
if TYPE_CHECKING:
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
