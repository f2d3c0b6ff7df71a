"""`--report DIR`: raw JSONL, plots and index.html computed from the same rows."""

from __future__ import annotations

import json
from pathlib import Path

from evals.report.page import RAW_FILE, ReportSpec, write_report_dir
from evals.report.stats import running_success, wilson

ROWS = [
    {
        "key": f"{arm}/{fam}#{i}",
        "arm": arm,
        "family": fam,
        "success": ok,
        "steps": s,
        "tokens": 100 * s,
        "seconds": 1.5 * s,
    }
    for arm, fam, i, ok, s in [
        ("no-memory", "click-tab", 0, False, 3),
        ("no-memory", "click-tab", 1, True, 2),
        ("no-memory", "login-user", 0, False, 5),
        ("workflows", "click-tab", 0, True, 1),
        ("workflows", "click-tab", 1, True, 2),
        ("workflows", "login-user", 0, False, 4),
    ]
]


def test_report_dir_holds_raw_rows_plots_and_page(tmp_path: Path) -> None:
    curves = running_success(ROWS)
    spec = ReportSpec(title="AWM <MiniWoB>", curves=curves, notes=["seeds 0-1"])
    page = write_report_dir(tmp_path / "r", ROWS, spec)
    raw = [json.loads(x) for x in (tmp_path / "r" / RAW_FILE).read_text().splitlines()]
    assert raw == ROWS
    for name in ("success.png", "curve.png", "cost.png"):
        assert (tmp_path / "r" / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    summary = json.loads((tmp_path / "r" / "summary.json").read_text())
    arms = {a["group"]["arm"]: a for a in summary["arms"]}
    assert arms["workflows"]["successes"] == 2 and arms["no-memory"]["successes"] == 1
    drawn = {d["arm"]: d for d in summary["plots"]["success.png"]}
    assert drawn["workflows"]["low"] == wilson(2, 3)[0]
    assert summary["plots"]["curve.png"]["workflows"] == [[1, 1.0], [2, 1.0], [3, 2 / 3]]
    assert summary["plots"]["cost.png"]["steps"][0]["mean"] == 10 / 3
    text = page.read_text()
    assert "AWM &lt;MiniWoB&gt;" in text and "<li>seeds 0-1</li>" in text
    assert text.count("<img ") == 3 and 'id="groups"' in text


def test_running_success_is_per_arm_in_order() -> None:
    curves = running_success(ROWS)
    assert curves["no-memory"] == [(1.0, 0.0), (2.0, 0.5), (3.0, 1 / 3)]


def test_published_references_are_drawn_but_kept_apart_from_the_measured_curves(tmp_path: Path):
    spec = ReportSpec(
        title="Reflexion",
        curves={"reflections": [(1, 0.1), (2, 0.2)]},
        references={"Reflexion": [(1, 0.61), (5, 0.72)]},
    )
    write_report_dir(tmp_path / "r", ROWS, spec)
    summary = json.loads((tmp_path / "r" / "summary.json").read_text())
    assert summary["plots"]["curve.png"] == {"reflections": [[1, 0.1], [2, 0.2]]}
    assert summary["references"] == {"Reflexion": [[1, 0.61], [5, 0.72]]}
