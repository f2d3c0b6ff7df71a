"""One process at a time per run thread: a lock file under HOME/runs, held while `run` works.

    with hold_thread(runs, thread_id, resume):   # ThreadBusy (exit 2) while another runs it
        ...

Two processes resuming one thread would both finish it, repeating its remaining tool calls and
model calls. The lock is an flock on HOME/runs/<id>.lock: the kernel releases it when the
process ends by any path (a SIGKILL too), so a lock left by a killed process is no lock, and
nothing has to judge whether a recorded process id is still alive. The file names the holder's
process id for the message; it is removed on release, and a taker checks that the file it locked
is still the one at that path (a releasing process may remove it in between).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from cli.errors import UsageError


class ThreadBusy(UsageError):
    """Another process is running this thread now."""


def _holder(path: Path) -> str:
    try:
        pid = path.read_text(encoding="utf-8").strip()
    except OSError:
        return ""
    return f" (process {pid})" if pid.isdigit() else ""


def _take(path: Path, thread_id: str) -> int:
    """An open descriptor of `path` holding its exclusive flock."""
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            if _locked(fd, path, thread_id):
                return fd
        except BaseException:  # closing the descriptor is what releases its lock
            os.close(fd)
            raise
        os.close(fd)  # its holder removed it on release: take the file now at that path


def _locked(fd: int, path: Path, thread_id: str) -> bool:
    """Whether `fd` now holds the lock of the file at `path`; ThreadBusy if another does."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise ThreadBusy(
            f"run {thread_id} is already running{_holder(path)}: wait for it to finish or "
            "stop it, then resume it again"
        ) from None
    try:
        return os.fstat(fd).st_ino == os.stat(path).st_ino
    except FileNotFoundError:
        return False


@contextmanager
def hold_thread(runs: Path, thread_id: str, resume: str = "") -> Iterator[Path]:
    """Hold HOME/runs/<thread_id>.lock for the context; ThreadBusy if another process holds it
    (its message ends with `resume`, the command that resumes the thread, when given)."""
    path = runs / f"{thread_id}.lock"
    try:
        fd = _take(path, thread_id)
    except ThreadBusy as busy:
        raise ThreadBusy(f"{busy} ({resume})" if resume else str(busy)) from None
    except OSError as exc:
        raise UsageError(f"cannot lock {path}: {exc.strerror or exc}") from exc
    try:
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        yield path
    finally:
        # while still locked: no taker can hold this file then; a file left behind (the folder
        # turned read-only) is no lock, as after a SIGKILL
        with contextlib.suppress(OSError):
            path.unlink(missing_ok=True)
        os.close(fd)
