"""The report of ExpeL's protocol (evals.hotpotqa.expel): the arms side by side, which training
memories reached which test prompts, and calls on the test questions of a kind seen in training."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from evals.hotpotqa.expel import ExpelSettings
from evals.hotpotqa.expel_memory import TRAIN_ARM


def reached(by_arm: dict[str, list[dict[str, Any]]], kept: Sequence[dict[str, Any]]) -> list[dict]:
    """Per test question of the train-memory arm: the training memories that reached its
    prompts (kind, and the training question each came from)."""
    source = {k["id"]: k for k in kept if k.get("id")}
    out = []
    for r in by_arm.get("train-memory", []):
        found = [source[i] for i in r.get("recalled") or [] if i in source]
        if found:
            memories = [
                {"kind": k["kind"], "from": k["from"], "sources": k.get("sources", [k["from"]])}
                for k in found
            ]
            out.append({"id": r["id"], "em": bool(r["em"]), "memories": memories})
    return out


def seen_kind_calls(
    by_arm: dict[str, list[dict[str, Any]]], reach: Sequence[dict[str, Any]]
) -> dict[str, Any]:
    """Calls per question on the test questions a worked example reached (a kind seen in
    training), per arm, and the train-memory arm's saving against no-memory's."""
    ids = {r["id"] for r in reach if any(m["kind"] == "example" for m in r["memories"])}
    calls = {arm: [int(r["calls"]) for r in rows if r["id"] in ids] for arm, rows in by_arm.items()}
    means = {arm: sum(c) / len(c) if c else 0.0 for arm, c in calls.items()}
    base, mem = means.get("no-memory"), means.get("train-memory")
    saving = 1 - mem / base if base and mem is not None else None
    return {"questions": len(ids), "calls": means, "saving": saving}


def write_expel_report(folder: str | Path, result: dict[str, Any], s: ExpelSettings) -> Path:
    """The report page: results.jsonl (every test answer), summary.json (`arms` keyed by name,
    `training`, `reached`, `seen_kind`, `moved`), index.html; returns the page."""
    from evals.hotpotqa.stream import arm_summaries, moved
    from evals.report.page import ReportSpec, write_report_dir

    by_arm, kept = result["by_arm"], result["kept"]
    reach = reached(by_arm, kept)
    training = [r for r in result["training"] if r.get("arm") == TRAIN_ARM]
    solved = {r["id"] for r in training if r["em"]}
    train_ids = {r["id"] for r in training}
    extra = {
        "arms": arm_summaries(by_arm),  # keyed by name, in place of the page's list
        "training": {
            "questions": len(train_ids),
            "solved": len(solved),
            "trials": s.trials,
            "calls": sum(int(r["calls"]) for r in training),
            "examples": sum(k["kind"] == "example" for k in kept),
            "insights": sum(k["kind"] == "insight" and bool(k.get("id")) for k in kept),
        },
        "split": {"train": sorted(train_ids), "test": [q.id for q in result["test"]]},
        "kept": list(kept),
        "reached": reach,
        "seen_kind": seen_kind_calls(by_arm, reach),
        "moved": moved(by_arm, base="no-memory"),
    }
    spec = ReportSpec(
        title=f"HotpotQA ({s.base.setting}), ExpeL's protocol, model {s.base.model}",
        group_key=None,
        success_key="em",
        success_label="exact match",
        metrics=("f1", "calls", "seconds"),
        cost_metrics=("calls", "seconds"),
        notes=[
            f"training: first {s.train_limit} of {s.train}, up to {s.trials} trials; "
            f"test: the other questions of {s.base.file}"
        ],
    )
    rows = [r for name in s.arms for r in by_arm.get(name, [])]
    return write_report_dir(folder, rows, spec, extra=extra)
