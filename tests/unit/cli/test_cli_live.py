"""The live status line: node, elapsed seconds and streamed tokens on a TTY stderr; elsewhere (a
service's log) the same as a whole line at intervals, so a long wait is never silent."""

from __future__ import annotations

import io
import itertools
import re
import threading
import time
import uuid
from typing import TypedDict

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph

from cli.execution import _drive, _live_line
from cli.live import CLEAR, LiveLine, LogLines
from cli.progress import Progress
from core.context import Context


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def _start(line: LiveLine, node: str, name: str | None = None) -> uuid.UUID:
    run_id = uuid.uuid4()
    line.on_chain_start({}, {}, run_id=run_id, metadata={"langgraph_node": node}, name=name or node)
    return run_id


def test_line_shows_running_nodes_elapsed_and_tokens():
    clock = Clock()
    line = LiveLine(io.StringIO(), clock=clock)
    assert line.render() == ""
    outer = _start(line, "execute_task")
    _start(line, "execute_task", name="RunnableSequence")  # a runnable inside the node: ignored
    clock.now += 3
    inner = _start(line, "model")
    for _ in range(42):
        line.on_llm_new_token("x")
    clock.now += 9.4
    assert line.render() == "… execute_task › model  12s  42 tokens"
    line.on_chain_end({}, run_id=inner)
    assert line.render() == "… execute_task  12s  42 tokens"
    line.on_chain_error(RuntimeError("x"), run_id=outer)
    assert line.render() == ""
    _start(line, "reflect_on_task")  # a new node starts counting from zero
    assert line.render() == "… reflect_on_task  0s"


def test_draw_and_clear_stay_on_one_line():
    out = io.StringIO()
    line = LiveLine(out, clock=Clock())
    line.draw()
    assert out.getvalue() == ""  # nothing running, nothing drawn
    _start(line, "goal_setting")
    line.draw()
    with line.paused():
        assert out.getvalue() == CLEAR + "… goal_setting  0s" + CLEAR
    line.clear()  # already clear: no extra output
    assert "\n" not in out.getvalue() and out.getvalue().count(CLEAR) == 2


class State(TypedDict, total=False):
    query: str
    optimized_goal: str


THREADS: list[str] = []


def _graph(pause_s: float):
    model = GenericFakeChatModel(messages=itertools.cycle([AIMessage("a clear smart goal here")]))

    def goal_setting(state: State) -> State:
        THREADS.append(threading.current_thread().name)
        text = model.invoke(state["query"]).text
        time.sleep(pause_s)  # a long node: the line must redraw while it runs
        return {"optimized_goal": text}

    builder = StateGraph(State)
    builder.add_node("goal_setting", goal_setting)
    builder.add_edge(START, "goal_setting")
    builder.add_edge("goal_setting", END)
    return builder.compile(checkpointer=InMemorySaver())


def _run(out: io.StringIO, pause_s: float) -> None:
    config = {"configurable": {"thread_id": "t"}, "callbacks": []}
    _drive(_graph(pause_s), {"query": "q"}, config, Context(), Progress({}, 2, out=out))


def test_a_terminal_gets_the_live_line_with_streamed_tokens(capsys):
    out, THREADS[:] = Tty(), []
    _run(out, pause_s=0.8)
    assert THREADS == ["MainThread"]  # so Ctrl-C interrupts the node at once
    text = out.getvalue()
    assert re.search(r"… goal_setting  \d+s  9 tokens", text)  # the fake streams 9 chunks
    # the progress line starts on a cleared line, and no live line is left after it
    assert text.endswith(CLEAR + "[goal_setting] goal: a clear smart goal here\n")
    assert capsys.readouterr().out == ""  # stdout untouched


def test_a_pipe_gets_plain_lines_only():
    out = io.StringIO()
    _run(out, pause_s=0.3)
    assert out.getvalue() == "[goal_setting] goal: a clear smart goal here\n"


def test_a_log_hears_of_a_long_node_in_whole_lines():
    clock, out = Clock(), io.StringIO()
    lines = LogLines(out, clock=clock)
    lines.draw()
    assert out.getvalue() == ""  # nothing running, nothing said
    _start(lines, "aggregate_results")
    clock.now += 60
    lines.draw()
    with lines.paused():  # a progress line comes: nothing to take back
        pass
    assert out.getvalue() == "… aggregate_results  60s\n"
    assert not hasattr(lines, "tap_output_iter")  # models are called as without it


def test_a_log_gets_lines_at_intervals_while_a_node_runs():
    live = _live_line(io.StringIO())
    try:
        assert isinstance(live, LogLines) and live.interval == 30
    finally:
        live.stop()
    out = io.StringIO()
    lines = LogLines(out, interval=0.1).start()
    _start(lines, "goal_setting")
    time.sleep(0.45)
    lines.stop()
    assert out.getvalue().count("… goal_setting  0s\n") >= 2


def test_progress_names_nodes_it_does_not_know():
    out = io.StringIO()
    progress = Progress({}, 2, out=out)
    progress.update("fan_out_tasks", {"tasks": ["a"]})
    progress.update("aggregate_results", {"final_output": "x"})
    assert out.getvalue() == "[fan_out_tasks] done\n[aggregate_results] final answer written\n"


def test_a_cap_is_said_once_where_it_stopped_the_run():
    out = io.StringIO()
    progress = Progress({"tasks": ["a", "b"]}, 0, out=out)
    progress.update("schedule_tasks", {"current_tasks": [], "stopped": "max_calls"})
    progress.update("schedule_tasks", {"current_tasks": [], "stopped": "max_calls"})
    progress.update("aggregate_results", {"stopped": "max_calls", "final_output": "x"})
    assert out.getvalue().splitlines() == [
        "[schedule_tasks] the run reached its --max-calls cap: no further task starts",
        "[schedule_tasks] done",
        "[aggregate_results] no call left (--max-calls): the answer is what the run found",
    ]
