"""One process at a time per run thread (cli/thread_lock.py): a second holder is refused with
the first one's process id, a lock left by a killed process is no lock, and the file goes away
on release."""

from __future__ import annotations

import fcntl
import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

import main
from cli import thread_lock
from cli.errors import UsageError
from cli.thread_lock import ThreadBusy, hold_thread
from tests.conftest import ROOT

HOLD = """
import sys, time
from pathlib import Path
from cli.thread_lock import hold_thread
with hold_thread(Path(sys.argv[1]), "t1"):
    print("held", flush=True)
    time.sleep(120)
"""


@contextmanager
def _holder(runs: Path) -> Iterator[subprocess.Popen]:
    """Another process holding thread t1's lock until it is killed (at the latest on leaving)."""
    argv = [sys.executable, "-c", HOLD, str(runs)]
    with subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE, text=True) as child:
        try:
            assert child.stdout is not None and child.stdout.readline() == "held\n"
            yield child
        finally:
            child.kill()


def test_a_thread_held_by_another_process_is_refused_naming_it(tmp_path) -> None:
    with _holder(tmp_path) as child:
        with pytest.raises(
            ThreadBusy, match=f"run t1 is already running \\(process {child.pid}\\)"
        ):
            with hold_thread(tmp_path, "t1"):
                pass
        with hold_thread(tmp_path, "t2"):  # another thread is free
            pass


def test_a_lock_that_fails_half_way_is_released(tmp_path, monkeypatch) -> None:
    def no_stat(*args: object) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(thread_lock.os, "fstat", no_stat)
    with pytest.raises(UsageError, match="cannot lock .*t1.lock: Permission denied"):
        with hold_thread(tmp_path, "t1"):
            pass
    monkeypatch.undo()
    fd = os.open(tmp_path / "t1.lock", os.O_RDWR)
    try:  # a descriptor left open would still hold the lock
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    finally:
        os.close(fd)


def test_a_lock_left_by_a_killed_process_is_no_lock(tmp_path) -> None:
    with _holder(tmp_path) as child:
        child.send_signal(signal.SIGKILL)
        child.wait()
    assert (tmp_path / "t1.lock").exists()  # left behind: a SIGKILL runs no cleanup
    with hold_thread(tmp_path, "t1") as path:
        assert path.read_text() == f"{os.getpid()}\n"
    assert not path.exists()  # removed on release


def test_the_cli_refuses_a_second_resume_before_anything_loads(tmp_path, capsys) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    saved = {"task": "Who?", "graph": "reflective", "context": {}}
    (runs / "t1.json").write_text(json.dumps(saved))
    with _holder(runs) as child:
        code = main.main(["--home", str(tmp_path), "run", "--resume", "t1"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("error:") == 1, err
    assert f"run t1 is already running (process {child.pid})" in err
