"""bench/cli_startup.py runs (one tiny round) and reports both timings side by side."""

from __future__ import annotations

import json

from bench import cli_startup


def test_bench_prints_help_beside_python(capsys):
    assert cli_startup.main(["--runs", "1", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["runs"] == 1 and result["target_s"] == cli_startup.TARGET_S
    assert 0 < result["python_c_pass_s"] and 0 < result["main_help_s"]
    assert result["help_minus_python_s"] == round(
        result["main_help_s"] - result["python_c_pass_s"], 4
    )
