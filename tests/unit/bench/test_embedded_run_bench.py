"""bench/embedded_run.py's assembly: sides alternate, medians, ratio; no model is run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import embedded_run


def fake_runner(seconds: dict[str, list[float]], order: list[str]):
    def run(side, checkout, home):
        order.append(side)
        assert Path(home).is_dir() and checkout == Path(side)
        s = seconds[side].pop(0)
        return {
            "seconds": s,
            "llm_calls": int(s),
            "tokens": {"input": 10, "output": 2},
            "final_output": f"{side} answer",
        }

    return run


def test_sides_alternate_and_the_ratio_is_current_over_baseline():
    order: list[str] = []
    runner = fake_runner({"current": [10.0, 30.0, 20.0], "baseline": [40.0, 40.0, 50.0]}, order)
    checkouts = {side: Path(side) for side in embedded_run.SIDES}
    runs = embedded_run.compare(runner, checkouts, repeats=3)
    assert order == ["current", "baseline", "baseline", "current", "current", "baseline"]
    result = embedded_run.assemble(runs, question="Q?", baseline_rev="0221fe5")
    json.dumps(result)  # one JSON object
    assert result["current"]["seconds"] == 20.0 and result["baseline"]["seconds"] == 40.0
    assert result["ratio"] == 0.5 and result["repeats"] == 3
    assert result["current"]["llm_calls"] == 20  # the median run's own measures
    assert result["current"]["all_seconds"] == [10.0, 30.0, 20.0]
    for side in embedded_run.SIDES:
        assert {"seconds", "llm_calls", "tokens", "final_output"} <= set(result[side])


def test_the_cli_json_line_is_found_among_other_output():
    out = 'thread: abc\n{"final_output": "Nick Park", "llm_calls": 9}\n'
    assert embedded_run.last_json(out)["llm_calls"] == 9
    with pytest.raises(ValueError, match="no JSON object"):
        embedded_run.last_json("Traceback ...\n")


def test_both_sides_get_the_same_run_command():
    cmd = embedded_run.run_command("Who created Wallace and Gromit?", "/tmp/h")
    assert cmd[1:4] == ["main.py", "--home", "/tmp/h"]
    assert cmd[4:] == [
        "run",
        "Who created Wallace and Gromit?",
        "--corpus",
        str(embedded_run.CORPUS),
        "--max-retries",
        "1",
        "--json",
    ]
