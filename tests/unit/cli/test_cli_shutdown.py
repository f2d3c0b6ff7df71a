"""The exit after a command: bounded, runs the atexit hooks, lets working threads finish."""

from __future__ import annotations

import signal
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


GRAPH = """
import os, signal, sys, threading, time
from typing import TypedDict
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from cli.errors import classify
from cli.execution import _drive
from cli.progress import Progress
from cli.shutdown import PromptInterrupts, exit_promptly, terminate_as_interrupt
from core.context import Context

class S(TypedDict, total=False):
    x: int

def slow(state):
    os.write(1, b"started\\n")  # one write: two threads print at once
    for _ in range(300):
        time.sleep(0.1)
    return {}

builder = StateGraph(S)
for name in sys.argv[1].split(","):
    builder.add_node(name, slow)
    builder.add_edge(START, name)
    builder.add_edge(name, END)
graph = builder.compile(checkpointer=InMemorySaver())
try:
    forced = lambda stop: print("forced", type(stop).__name__, flush=True)
    with terminate_as_interrupt(), PromptInterrupts(forced, grace_s=1.0):
        config = {"configurable": {"thread_id": "t"}, "callbacks": []}
        _drive(graph, {"x": 0}, config, Context(), Progress({}, 0, out=sys.stderr))
except KeyboardInterrupt as stop:  # as main.py does: report, then a bounded exit
    print("normal path", type(stop).__name__, flush=True)
    time.sleep(2)  # longer than the grace: the watchdog must not fire out here
    exit_promptly(classify(stop).exit_code, threads_wait_s=1)
"""


def _interrupt(nodes: str, sig: int = signal.SIGINT) -> tuple[int, str, float]:
    child = subprocess.Popen(
        [sys.executable, "-c", GRAPH, nodes],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert child.stdout is not None
    assert child.stdout.readline() == "started\n"
    sent = time.monotonic()
    child.send_signal(sig)
    out = child.communicate(timeout=60)[0]
    return child.returncode, out, time.monotonic() - sent


def test_ctrl_c_while_parallel_nodes_run_exits_within_the_grace():
    # Without the watchdog, LangGraph waits ~30 s for both nodes to finish.
    code, out, seconds = _interrupt("a,b")
    assert code == 130 and out.count("forced") + out.count("normal path") == 1, out
    assert seconds < 10


def test_ctrl_c_in_a_main_thread_node_takes_the_normal_path():
    code, out, _ = _interrupt("a")
    assert code == 130 and "normal path" in out and "forced" not in out


def test_sigterm_takes_the_same_paths_with_its_own_exit_code():
    code, out, seconds = _interrupt("a,b", signal.SIGTERM)
    assert code == 143 and out.count("forced Terminated") + out.count("normal path Terminated") == 1
    assert seconds < 10, out
    code, out, _ = _interrupt("a", signal.SIGTERM)
    assert code == 143 and "normal path Terminated" in out and "forced" not in out
