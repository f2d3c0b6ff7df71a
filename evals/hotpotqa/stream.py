"""`eval hotpotqa-stream`: does memory carried between *different* questions help (ExpeL's
setting)? The questions come in file order, once each, answered by the product's graph; each
arm is one `eval hotpotqa` run with its own memory setting:

- `fresh`: every question starts with empty memory (the memory-off baseline of learning:
  what a run learns stays in its own question);
- `carry`: one memory for the whole stream (reflections, lessons of successes and failures,
  workflows);
- `carry-reflections` / `carry-workflows`: carried, with only reflections / only workflows
  reaching the prompts;
- `carry-successes`: carried, with lessons learned from failed attempts kept out of prompts
  (does adding failure lessons help? ReasoningBank says it should);
- `carry-gold` / `carry-workflows-gold`: `carry` / `carry-workflows` where each run, once
  answered and scored, is judged by its true answer instead of its own answer check (ExpeL's
  training phase: a run that agreed on a wrong answer teaches no workflow).

Each arm's answers are OUT/ARM/results.jsonl (resumable, and identical in settings to the
same `eval hotpotqa` run, so a finished `eval hotpotqa --memory fresh` run can stand as the
`fresh` arm). The report's summary.json keys every arm by name (`by_arm`) with its EM, its
95% interval, n, F1, calls and seconds, and how much of earlier questions' memory reached its
prompts (`recalled`: per question on average; `reached`: on how many questions); `moved` lists
each question whose answer an arm changed from `fresh`'s, with what memory reached it there.
The running EM of each arm is drawn over the stream.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TextIO

from core.model_defaults import default_tool_steps
from evals.hotpotqa.dataset import HotpotQuestion
from evals.hotpotqa.single import HotpotSettings, run_single
from evals.report.stats import p95, running_success, wilson

ARMS: dict[str, dict[str, Any]] = {
    "fresh": {"memory": "fresh"},
    "carry": {"memory": "carry"},
    "carry-reflections": {"memory": "carry", "context": {"workflows_k": 0}},
    "carry-workflows": {"memory": "carry", "context": {"reflections_k": 0}},
    "carry-successes": {"memory": "carry", "context": {"failure_lessons": False}},
    "carry-gold": {"memory": "carry", "verdict": "gold"},
    "carry-workflows-gold": {"memory": "carry", "context": {"reflections_k": 0}, "verdict": "gold"},
}


NO_WORKFLOWS = (
    "note: with no tool steps every task is one search and a workflow needs two actions; only "
    "the reflective graph's checked runs of several tasks leave longer ones: no workflow can be "
    "learned on this graph, so carry-workflows runs as fresh does (give --max-tool-steps)"
)


@dataclass
class StreamSettings:
    """One HotpotSettings (`base`: file, model, graph, retries, …) run once per arm."""

    base: HotpotSettings
    arms: list[str] = field(default_factory=lambda: ["fresh", "carry"])

    def validate(self) -> None:
        unknown = [a for a in self.arms if a not in ARMS]
        if unknown or not self.arms:
            raise ValueError(f"unknown arm(s) {unknown}; choose from {', '.join(ARMS)}")
        for arm in self.arms:
            self.arm(arm).validate()

    def tool_steps(self) -> int:
        """The executor's tool steps per attempt (`--max-tool-steps`, else its model's default)."""
        steps = self.base.max_tool_steps
        return default_tool_steps(self.base.model) if steps is None else steps

    def arm(self, name: str) -> HotpotSettings:
        """The arm's own settings: its memory mode and knobs, its own results folder (and in a
        shared database, its own scope: OUT's name, the arm's)."""
        root = self.base.scope_root or self.base.out.parent
        return replace(self.base, out=self.base.out / name, scope_root=root, **ARMS[name])


def run_stream(
    s: StreamSettings, questions: list[HotpotQuestion], *, out: TextIO | None = None
) -> dict[str, list[dict[str, Any]]]:
    """Run (or resume) every arm, one after the other; each arm's records in question order."""
    s.validate()
    if "carry-workflows" in s.arms and s.tool_steps() == 0 and s.base.graph != "reflective":
        print(NO_WORKFLOWS, file=out or sys.stderr, flush=True)
    by_arm: dict[str, list[dict[str, Any]]] = {}
    for name in s.arms:
        print(f"== arm {name}", file=out or sys.stderr, flush=True)
        log = run_single(s.arm(name), questions, out=out)
        records = log.records_by_key()
        by_arm[name] = [{**records[q.id], "arm": name} for q in questions if q.id in records]
    return by_arm


def arm_summaries(by_arm: dict[str, list[dict[str, Any]]]) -> dict[str, dict[str, Any]]:
    """Per arm: em (with its 95% Wilson interval), n, f1, calls and seconds per question (mean
    and 95th percentile),
    and the memories of earlier questions that reached its prompts (`recalled`, a mean;
    `reached`, the questions with any; runs that did not record it count as none)."""
    out: dict[str, dict[str, Any]] = {}
    for name, rows in by_arm.items():
        n, right = len(rows), sum(bool(r["em"]) for r in rows)
        low, high = wilson(right, n) if n else (0.0, 0.0)
        out[name] = {
            "n": n,
            "correct": right,
            "em": right / n if n else 0.0,
            "em_low": low,
            "em_high": high,
            "f1": _mean(rows, "f1"),
            "calls": _mean(rows, "calls"),
            "calls_p95": p95([float(r["calls"]) for r in rows]),
            "seconds": _mean(rows, "seconds"),
            "seconds_p95": p95([float(r["seconds"]) for r in rows]),
            "recalled": sum(len(r.get("recalled") or []) for r in rows) / n if n else 0.0,
            "reached": sum(bool(r.get("recalled")) for r in rows),
        }
    return out


def moved(by_arm: dict[str, list[dict[str, Any]]], base: str = "fresh") -> list[dict[str, Any]]:
    """Each question an arm answered otherwise than `base`: both answers, which was right, and
    the memories of earlier questions that reached the arm's prompts there (where to look
    when memory made an answer worse)."""
    before = {r["id"]: r for r in by_arm.get(base, [])}
    out = []
    for name, rows in by_arm.items():
        for r in rows:
            b = before.get(r["id"])
            if name == base or b is None or b["answer"] == r["answer"]:
                continue
            out.append(
                {
                    "arm": name,
                    "id": r["id"],
                    "question": r["question"],
                    base: b["answer"],
                    "answer": r["answer"],
                    "gold": r["gold"],
                    "em": {base: bool(b["em"]), name: bool(r["em"])},
                    "recalled": r.get("recalled"),
                }
            )
    return out


def _mean(rows: Sequence[dict[str, Any]], key: str) -> float:
    return sum(float(r[key]) for r in rows) / len(rows) if rows else 0.0


def write_stream_report(
    folder: str | Path, by_arm: dict[str, list[dict[str, Any]]], s: StreamSettings
) -> Path:
    """The report page (results.jsonl of every arm, summary.json with `by_arm`, the running EM
    curves) under `folder`; returns index.html."""
    from evals.report.page import ReportSpec, write_report_dir

    rows = [r for name in s.arms for r in by_arm.get(name, [])]
    spec = ReportSpec(
        title=f"HotpotQA stream, graph {s.base.graph}, model {s.base.model}",
        group_key=None,
        success_key="em",
        success_label="exact match",
        metrics=("f1", "calls", "seconds"),
        cost_metrics=("calls", "seconds"),
        curves=running_success(rows, by="arm", success="em"),
        curve_axes=("questions so far", "running EM", "EM over the stream, per arm"),
        notes=[f"arms: {', '.join(f'{a} {ARMS[a]}' for a in s.arms)}"],
    )
    extra = {"by_arm": arm_summaries(by_arm), "moved": moved(by_arm)}
    return write_report_dir(folder, rows, spec, extra=extra)


def arms_table(arms: dict[str, dict[str, Any]]) -> str:
    """arm_summaries as a table: n, EM with its 95% interval, F1, calls and seconds a question."""
    from evals.report.tables import format_table

    rows = [
        [
            name,
            a["n"],
            f"{a['em']:.3f} [{a['em_low']:.2f}, {a['em_high']:.2f}]",
            f"{a['f1']:.3f}",
            f"{a['calls']:.1f}",
            f"{a['seconds']:.1f}",
        ]
        for name, a in arms.items()
    ]
    return format_table(["arm", "n", "EM [95% CI]", "F1", "calls/q", "s/q"], rows)
