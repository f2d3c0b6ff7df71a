"""Stopping the servers integration tests start: terminate, then kill if it does not exit."""

from __future__ import annotations

import subprocess


def stop(proc: subprocess.Popen, timeout: float = 20) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
