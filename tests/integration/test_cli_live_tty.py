"""On a terminal, the embedded model's tokens show on a live line; Ctrl-C stops at once.

stderr is a pseudo-terminal and stdout a pipe, as in `main.py run ... > answer.txt`.
"""

from __future__ import annotations

import os
import pty
import re
import select
import signal
import subprocess
import sys
import time

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.integration
# the live line of any node ("… goal_setting  1s  25 tokens", "… run_task › execute_task › model
# 1s  17 tokens"): a short call (goal_setting's) may show only two counts (seen in CI)
LIVE = re.compile(rb"\r\x1b\[K\xe2\x80\xa6 [^\r\x1b]*?  \d+s  (\d+) tokens")


def _read(fd: int, seconds: float) -> bytes:
    ready, _, _ = select.select([fd], [], [], seconds)
    try:
        return os.read(fd, 65536) if ready else b""
    except OSError:  # the child closed its end
        return b""


def test_live_tokens_then_ctrl_c(tmp_path):
    pytest.importorskip("llama_cpp", reason="the embedded model's runtime is not installed")
    master, slave = pty.openpty()
    options = "--no-browser --embedding-model hashing --max-retries 0".split()
    # the default model, not the fast test model: on a quiet machine SmolLM2 finished the whole
    # run (4 calls, 3 s) before its count had moved three times, and there was nothing to stop
    options += ["--model", "local"]
    argv = [sys.executable, "main.py", "--home", str(tmp_path), "run", "Who created Wallace?"]
    argv += options
    child = subprocess.Popen(
        argv,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=slave,
        # a harness may run us with SIGINT ignored, which the child would inherit
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    os.close(slave)
    seen, started = b"", time.monotonic()
    while len({m.group(1) for m in LIVE.finditer(seen)}) < 3:  # the count moves
        assert child.poll() is None, seen.decode(errors="replace")
        assert time.monotonic() - started < 240, "no live token count on the terminal"
        seen += _read(master, 1)
    child.send_signal(signal.SIGINT)
    interrupted = time.monotonic()
    while child.poll() is None and time.monotonic() - interrupted < 60:
        seen += _read(master, 0.5)  # keep draining: a full terminal would block the child
    seen += _read(master, 0.5)
    os.close(master)
    stdout = child.stdout.read() if child.stdout else b""
    assert child.returncode == 130
    assert time.monotonic() - interrupted < 15
    assert b"error: interrupted (resume with: python main.py run --resume " in seen
    assert b"Traceback" not in seen
    assert stdout == b""  # the live line never touched stdout
