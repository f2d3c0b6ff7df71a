"""One process at a time per run thread (cli/thread_lock.py): a second holder is refused with
the first one's process id, a lock left by a killed process is no lock, and the file goes away
on release."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

import main
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


def _holder(runs: Path) -> subprocess.Popen:
    """Another process holding thread t1's lock until it is killed."""
    child = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(runs)], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    assert child.stdout is not None and child.stdout.readline() == "held\n"
    return child


def test_a_thread_held_by_another_process_is_refused_naming_it(tmp_path) -> None:
    child = _holder(tmp_path)
    try:
        with pytest.raises(
            ThreadBusy, match=f"run t1 is already running \\(process {child.pid}\\)"
        ):
            with hold_thread(tmp_path, "t1"):
                pass
        with hold_thread(tmp_path, "t2"):  # another thread is free
            pass
    finally:
        child.kill()
        child.wait()


def test_a_lock_left_by_a_killed_process_is_no_lock(tmp_path) -> None:
    child = _holder(tmp_path)
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
    child = _holder(runs)
    try:
        code = main.main(["--home", str(tmp_path), "run", "--resume", "t1"])
    finally:
        child.kill()
        child.wait()
    err = capsys.readouterr().err
    assert code == 2 and err.count("error:") == 1, err
    assert f"run t1 is already running (process {child.pid})" in err
