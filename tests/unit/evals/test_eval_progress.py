"""Live progress lines and resumable JSONL results."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from evals.common.progress import ProgressMeter, format_duration
from evals.common.results_log import ResultsLog, ResultsLogError


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_progress_line_counts_score_and_time_left() -> None:
    out, clock = io.StringIO(), Clock()
    meter = ProgressMeter("awm", 4, out=out, clock=clock)
    assert meter.eta() is None
    clock.now += 30
    line = meter.update(True, "click-button seed=0")
    assert line.startswith("[awm] 1/4 score 1.000 (1/1) 30s elapsed, ~1m30s left")
    assert line.endswith("click-button seed=0")
    clock.now += 30
    meter.update(False)
    assert "2/4 score 0.500 (1/2) 1m00s elapsed, ~1m00s left" in out.getvalue().splitlines()[-1]


def test_resumed_items_count_but_do_not_set_the_pace() -> None:
    out, clock = io.StringIO(), Clock()
    meter = ProgressMeter("h", 10, out=out, clock=clock)
    meter.resume(6, wins=3)
    assert "resuming: 6/10 already done" in out.getvalue()
    assert meter.eta() is None
    clock.now += 10
    line = meter.update(None)
    assert "7/10 score 0.500 (3/6)" in line and "~30s left" in line


def test_format_duration() -> None:
    assert [format_duration(s) for s in (4.4, 65, 7260)] == ["4s", "1m05s", "2h01m"]


def test_results_log_resumes_and_skips_done_keys(tmp_path: Path) -> None:
    path = tmp_path / "out" / "episodes.jsonl"
    log = ResultsLog(path, {"model": "m"})
    log.append({"key": "a#0", "success": True})
    log.append({"key": "a#1", "success": False})
    again = ResultsLog(path, {"model": "m"})
    assert "a#0" in again and "a#2" not in again and len(again) == 2
    assert [r["key"] for r in again.records()] == ["a#0", "a#1"]
    with pytest.raises(ValueError, match="needs a 'key'"):
        again.append({"success": True})


def test_results_log_refuses_other_settings(tmp_path: Path) -> None:
    path = tmp_path / "episodes.jsonl"
    ResultsLog(path, {"model": "m", "episodes": 2}).append({"key": "x"})
    with pytest.raises(ResultsLogError, match="model: 'm' -> 'other'"):
        ResultsLog(path, {"model": "other", "episodes": 2})


def test_results_log_drops_a_torn_last_line(tmp_path: Path) -> None:
    path = tmp_path / "episodes.jsonl"
    path.write_text(json.dumps({"key": "a"}) + "\n" + '{"key": "b", "succ')
    log = ResultsLog(path)
    assert "a" in log and "b" not in log
    log.append({"key": "b"})
    assert [json.loads(x)["key"] for x in path.read_text().splitlines()] == ["a", "b"]
    path.write_text('{"key": "a"}\nnot json\n{"key": "c"}\n')
    with pytest.raises(ResultsLogError, match=":2: not a results record"):
        ResultsLog(path)
