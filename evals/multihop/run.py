"""`eval multihop`: several arms (baselines and the product's graphs) on the same multihop
questions in one pooled corpus, question by question (every arm answers a question before the
next question starts, so a run stopped anywhere compares the arms on the same questions), each
arm's records in OUT/ARM/results.jsonl (resumable), the numbers in OUT/summary.json.

    ./agent eval multihop --arms closed,rag,ircot,reflective --limit 2wiki=60,musique=40 \\
        --out docs/results/multihop-dev
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from evals.common.progress import ProgressMeter
from evals.common.results_log import ResultsLog
from evals.common.workers import Job, run_jobs
from evals.hotpotqa.pooled import corpus_sources, pooled_corpus, pooled_passages
from evals.hotpotqa.single import HotpotSettings, job_payload
from evals.multihop.dataset import MultihopQuestion, files, gold_sources
from evals.multihop.summary import summarize, table


@dataclass
class MultihopSettings:
    data: Path  # the folder of the three files (evals.multihop.dataset.DATASETS)
    out: Path
    arms: list[str]
    model: str = "local"
    max_retries: int = 1
    max_tool_steps: int | None = None
    workers: int = 1
    ray_address: str | None = None
    # the Context settings every graph arm runs with (none for the baselines)
    context: dict[str, Any] = field(default_factory=dict)

    def arm(self, name: str) -> HotpotSettings:
        """One arm's settings: pooled, memory fresh per question (a new user's run)."""
        return HotpotSettings(
            file=self.data,
            out=self.out / name,
            model=self.model,
            graph=name,
            max_retries=self.max_retries,
            max_tool_steps=self.max_tool_steps,
            setting="pooled",
            workers=self.workers,
            ray_address=self.ray_address,
            context=dict(self.context),
        )

    def validate(self) -> None:
        if not self.arms or len(set(self.arms)) < len(self.arms):
            raise ValueError(f"--arms takes distinct names, got {','.join(self.arms)!r}")
        for name in self.arms:
            self.arm(name).validate()


def run_multihop(
    s: MultihopSettings, questions: list[MultihopQuestion], *, out: TextIO | None = None
) -> dict[str, Any]:
    """Answer every question not yet answered by every arm; the summary (also in
    OUT/summary.json) with its table."""
    s.validate()
    corpus = str(pooled_corpus(files(s.data), s.out).resolve())
    logs = {a: ResultsLog(s.out / a / "results.jsonl", s.arm(a).identity()) for a in s.arms}
    jobs = [
        _job(s.arm(arm), q, corpus, arm)
        for q in questions
        for arm in s.arms
        if q.id not in logs[arm]
    ]
    total = len(questions) * len(s.arms)
    meter = ProgressMeter("multihop", total, out=out or sys.stderr)
    done = [r for log in logs.values() for r in log.records()]
    meter.resume(total - len(jobs), sum(bool(r["em"]) for r in done))
    meter.start_line(f"(arms {', '.join(s.arms)}; model {s.model})")

    def on_result(record: dict[str, Any]) -> None:
        arm, record["key"] = record["arm"], record["id"]
        logs[arm].append(record)
        meter.update(bool(record["em"]), f"{arm} {record['id'][:12]} calls={record['calls']}")

    run_jobs(jobs, on_result, workers=s.workers, ray_address=s.ray_address)
    return write_summary(s, questions, logs)


def _job(arm: HotpotSettings, q: MultihopQuestion, corpus: str, name: str) -> Job:
    payload = {**job_payload(arm, q.id, corpus), "file": str(q.file), "arm": name}
    return Job(f"{name}/{q.id}", "evals.hotpotqa.jobs:answer_question", payload)


def write_summary(
    s: MultihopSettings, questions: list[MultihopQuestion], logs: dict[str, ResultsLog]
) -> dict[str, Any]:
    """The numbers of what the logs hold for `questions`, written to OUT/summary.json."""
    sources = corpus_sources(pooled_passages(*files(s.data)))
    golds = {q.id: gold_sources(q.question, sources) for q in questions}
    datasets: dict[str, list[str]] = {}
    for q in questions:
        datasets.setdefault(q.dataset, []).append(q.id)
    by_arm = {arm: log.records_by_key() for arm, log in logs.items()}
    numbers = summarize(by_arm, datasets, golds)
    body = {
        "model": s.model,
        "arms": s.arms,
        "questions": {name: len(ids) for name, ids in datasets.items()},
        "settings": {a: s.arm(a).identity() for a in s.arms},
        "by_dataset": numbers,
    }
    (s.out / "summary.json").write_text(json.dumps(body, indent=2) + "\n", encoding="utf-8")
    return {**body, "table": table(numbers)}
