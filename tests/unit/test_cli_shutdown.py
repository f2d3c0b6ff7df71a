"""The exit after a command: bounded, runs the atexit hooks, lets working threads finish."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time

from tests.conftest import ROOT

PRELUDE = """
import atexit, sys, threading, time
from pathlib import Path
from cli.shutdown import exit_promptly
out = Path(sys.argv[1])
"""


def _script(body: str, tmp_path) -> tuple[subprocess.CompletedProcess, float]:
    code = PRELUDE + textwrap.dedent(body)
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "out")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    return done, time.monotonic() - started


def test_slow_teardown_is_skipped_but_exit_hooks_run(tmp_path):
    done, seconds = _script(
        """
        class SlowToFree:  # stands for torch & co., whose teardown took seconds
            def __del__(self):
                time.sleep(8)
        keep = SlowToFree()
        atexit.register(lambda: out.write_text("hook ran"))
        print("answer")
        exit_promptly(3)
        """,
        tmp_path,
    )
    assert done.returncode == 3 and done.stdout == "answer\n"
    assert (tmp_path / "out").read_text() == "hook ran"
    assert seconds < 6


def test_working_threads_finish_and_idle_pools_do_not_delay(tmp_path):
    done, seconds = _script(
        """
        from concurrent.futures import ThreadPoolExecutor
        pool = ThreadPoolExecutor(2)  # never shut down: idle non-daemon workers
        pool.submit(lambda: None).result()
        def work():
            time.sleep(1)
            out.write_text("saved")
        threading.Thread(target=work).start()
        exit_promptly(0, threads_wait_s=20)
        """,
        tmp_path,
    )
    assert done.returncode == 0 and done.stderr == ""
    assert (tmp_path / "out").read_text() == "saved"  # the write was not cut off
    assert seconds < 15


def test_a_stuck_thread_is_named_and_left_behind(tmp_path):
    done, seconds = _script(
        """
        threading.Thread(target=threading.Event().wait, name="hung-socket").start()
        exit_promptly(0, threads_wait_s=1)
        """,
        tmp_path,
    )
    assert done.returncode == 0 and "hung-socket" in done.stderr
    assert seconds < 10
