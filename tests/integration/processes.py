"""Child processes of integration tests: stopping the servers they start, and running a command
whose hang shows where it hangs."""

from __future__ import annotations

import os
import signal
import subprocess
from typing import Any

# A CLI child takes seconds here; CI once saw the same ones take 17 s and one pass 180 s (a
# stalled machine, or a hang: run_child's stacks tell which next time)
CHILD_TIMEOUT_S = 400
DUMP_WAIT_S = 15  # for the stacks of a child made to dump them


class ChildHung(AssertionError):
    """A child still running at its timeout; the message holds its threads' stacks."""


def stop(proc: subprocess.Popen, timeout: float = 20) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def run_child(argv: list[Any], *, timeout: float, **popen: Any) -> subprocess.CompletedProcess:
    """`subprocess.run(argv, capture_output=True, timeout=timeout, ...)`, except that a Python
    child still running at `timeout` is sent SIGABRT under PYTHONFAULTHANDLER, which prints every
    thread's stack, and ChildHung (an AssertionError: the test fails) carries them: a hang
    names its line, not only its time."""
    env = {**(popen.pop("env", None) or os.environ), "PYTHONFAULTHANDLER": "1"}
    pipes = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE}
    with subprocess.Popen(argv, env=env, **pipes, **popen) as proc:
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGABRT)
            try:
                _, err = proc.communicate(timeout=DUMP_WAIT_S)
            except subprocess.TimeoutExpired:
                proc.kill()
                _, err = proc.communicate()
            shown = err if isinstance(err, str) else err.decode("utf-8", "replace")
            said = f"still running after {timeout:.0f} s: {argv}\n{shown[-6000:]}"
            raise ChildHung(said) from None
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)
