"""`eval hotpotqa`: each question answered once by one of the product's graphs, scored with
HotpotQA's EM and F1, with model calls and seconds per question (one JSON line each)."""

from __future__ import annotations

import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from core.context import MAX_TOOL_STEPS, Context
from evals.common.progress import ProgressMeter
from evals.common.results_log import ResultsLog
from evals.common.workers import Job, run_jobs
from evals.hotpotqa.agent import GRAPHS, OWN_PARAGRAPHS
from evals.hotpotqa.baselines import BASELINES
from evals.hotpotqa.dataset import HotpotQuestion
from evals.hotpotqa.pooled import SETTINGS, pooled_corpus
from evals.report.tables import format_table

# fresh: every question starts with empty memory (as separate users would); carry: one memory
# for the stream, in question order (what one user's agent learns); off: no store at all
MEMORY_MODES = ("fresh", "carry", "off")
# what of memory reaches the prompts, per run (Context fields, and the lab's own knob
# failure_lessons: False keeps lessons learned from failures out, evals.hotpotqa.agent): the
# stream experiment's arms
MEMORY_KNOBS = ("reflections_k", "workflows_k", "failure_lessons")
TOKENS = ("prompt_tokens", "cached_tokens", "output_tokens")  # per record, when measured
# who judges a finished run for memory: its own answer check (as a user's run is judged), or
# the true answer after it is scored (ExpeL's training phase: the environment's reward)
VERDICTS = ("check", "gold")


@dataclass
class HotpotSettings:
    file: Path
    out: Path
    limit: int | None = None
    model: str = "local"
    graph: str = "reflective"
    max_retries: int = 2
    max_tool_steps: int | None = None  # None: the Context's default for `model`
    memory: str = "fresh"  # MEMORY_MODES
    setting: str = "distractor"  # SETTINGS: each question's own paragraphs, or all pooled
    context: dict[str, Any] = field(default_factory=dict)  # MEMORY_KNOBS for every run
    verdict: str = "check"  # VERDICTS
    workers: int = 1
    ray_address: str | None = None
    runner: str = "evals.hotpotqa.agent:default_runner"
    # memory kept in this PostgreSQL database, shared by the workers (never in the results:
    # it may hold a password); each question's memory under its scope_for there
    memory_url: str | None = None
    scope_root: Path | None = None  # scope_for names homes from here down (default: OUT's parent)
    # with `fresh` memory: each question's memory starts as a copy of this memory's home (what
    # a training phase left, evals.hotpotqa.expel), read by the run, never written back
    seed: Path | None = None
    # pooled: the folder whose question files' paragraphs make the corpus (evals.multihop's
    # three files); None: the question file's own paragraphs
    pool: Path | None = None

    def __post_init__(self) -> None:
        # resolved here, so the results' identity names the steps the run really took
        if self.max_tool_steps is None:
            self.max_tool_steps = Context(model=self.model).tool_steps

    def validate(self) -> None:
        for flag, value, allowed in (
            ("--graph", self.graph, GRAPHS),
            ("--setting", self.setting, SETTINGS),
            ("--memory", self.memory, MEMORY_MODES),
            ("--verdict", self.verdict, VERDICTS),
        ):
            if value not in allowed:
                raise ValueError(f"{flag} must be one of {', '.join(allowed)}, not {value!r}")
        self._validate_together()
        unknown = sorted(set(self.context) - set(MEMORY_KNOBS))
        if unknown:
            raise ValueError(f"unknown memory setting(s) {unknown}; known: {MEMORY_KNOBS}")
        if self.max_retries < 0:
            raise ValueError(f"--max-retries must be 0 or more, got {self.max_retries}")
        if not 0 <= (self.max_tool_steps or 0) <= MAX_TOOL_STEPS:
            raise ValueError(
                f"--max-tool-steps must be between 0 and {MAX_TOOL_STEPS}, "
                f"got {self.max_tool_steps}"
            )

    def _validate_together(self) -> None:
        """The settings that only make sense with others."""
        if self.setting == "pooled" and self.graph in OWN_PARAGRAPHS:
            raise ValueError(
                f"--graph {self.graph} reads the question's own paragraphs: run it with "
                "--setting distractor (for one retrieval from the pooled corpus: --graph rag)"
            )
        if self.seed is not None and (self.memory != "fresh" or self.memory_url):
            raise ValueError("a seeded memory is copied into each question's home: --memory fresh")
        if self.pool is not None and self.setting != "pooled":
            raise ValueError("--pool names the files of a pooled corpus: --setting pooled")
        if self.seed is not None and not Path(self.seed).is_dir():
            raise ValueError(f"the memory to start from is no folder: {self.seed}")
        if self.verdict == "gold" and self.memory == "off":
            raise ValueError("--verdict gold relabels what a run taught memory: it needs memory")

    def identity(self) -> dict[str, Any]:
        settings = {
            "file": str(self.file),
            "model": self.model,
            "graph": self.graph,
            "max_retries": self.max_retries,
            "max_tool_steps": self.max_tool_steps,
            "memory": self.memory,
            "runner": self.runner,
        }
        if self.graph in BASELINES:  # no retries, tool steps nor memory: any of them resumes
            for unused in ("max_retries", "max_tool_steps", "memory"):
                settings.pop(unused)
        if self.setting != "distractor":  # (runs of before the setting were distractor runs)
            settings["setting"] = self.setting
        if self.memory_url:  # shared memory changes what a run sees: say so, without the URL
            settings["shared_memory"] = True
        if self.verdict != "check":  # (a run of before the setting was judged by its check)
            settings["verdict"] = self.verdict
        if self.seed is not None:
            settings["seed"] = str(self.seed)
        if self.pool is not None:
            settings["pool"] = str(self.pool)
        return {**settings, "context": self.context} if self.context else settings

    def pooled(self) -> list[Path]:
        """The files whose paragraphs the pooled setting searches."""
        return sorted(Path(self.pool).glob("*.json")) if self.pool is not None else [self.file]

    def home_for(self, question_id: str) -> str:
        """Where a question's run keeps its memory: its own folder when `fresh`, one folder for
        the whole stream when `carry` (and `off`, which only keeps the corpora there)."""
        memory = self.out / "memory"
        return str(memory / "fresh" / question_id if self.memory == "fresh" else memory)

    def scope_for(self, question_id: str) -> list[str]:
        """Where a question's memory lives in the shared database: its home_for folder,
        named from `scope_root` down (the experiment, its arm, a fresh question's own);
        periods become underscores (LangGraph namespaces forbid them)."""
        home = Path(self.home_for(question_id)).resolve()
        parts = home.relative_to((self.scope_root or self.out.parent).resolve()).parts
        return ["eval", *(p.replace(".", "_") for p in parts)]


def run_single(
    s: HotpotSettings, questions: list[HotpotQuestion], *, out: TextIO | None = None
) -> ResultsLog:
    """Answer every question not already in OUT/results.jsonl; one line per answer."""
    log = ResultsLog(s.out / "results.jsonl", s.identity())
    corpus = str(pooled_corpus(s.pooled(), s.out).resolve()) if s.setting == "pooled" else None
    jobs = [
        Job(q.id, "evals.hotpotqa.jobs:answer_question", job_payload(s, q.id, corpus))
        for q in questions
    ]
    meter = ProgressMeter(f"hotpotqa {s.graph}", len(jobs), out=out or sys.stderr)
    done = [r for r in log.records() if r["key"] in {j.key for j in jobs}]
    meter.resume(len(done), sum(bool(r["em"]) for r in done))
    meter.start_line(f"(model {s.model}, workers {s.workers})")

    def on_result(record: dict[str, Any]) -> None:
        log.append(record)
        note = f"{record['id']} calls={record['calls']}"
        if record.get("recalled"):  # what earlier questions' memory put in its prompts
            note += f" recalled={len(record['recalled'])}"
        meter.update(bool(record["em"]), note)

    todo = [j for j in jobs if j.key not in log]
    _seed_homes(s.seed, todo)
    if s.memory == "carry":  # one memory for the stream: take back every cut question's writes
        _undo_cut_questions(todo)
    run_jobs(todo, on_result, workers=s.workers, ray_address=s.ray_address)
    return log


def job_payload(s: HotpotSettings, qid: str, corpus: str | None) -> dict[str, Any]:
    """The job of answering question `qid` under settings `s` (evals.hotpotqa.jobs)."""
    return {
        "file": str(s.file),
        "id": qid,
        "model": s.model,
        "graph": s.graph,
        "max_retries": s.max_retries,
        "max_tool_steps": s.max_tool_steps,
        "home": s.home_for(qid),
        "reflections": s.memory != "off",
        "runner": s.runner,
        **({"corpus": corpus} if corpus else {}),
        **({"context": s.context} if s.context else {}),
        **({"verdict": s.verdict} if s.verdict != "check" else {}),
        **({"memory_url": s.memory_url, "memory_scope": s.scope_for(qid)} if s.memory_url else {}),
    }


def _seed_homes(seed: Path | None, todo: list[Job]) -> None:
    """Each question to run starts from a fresh copy of `seed` (whatever an earlier, cut attempt
    left in its home goes); nothing without a seed."""
    if seed is None:
        return
    for job in todo:
        home = Path(job.payload["home"])
        if home.exists():
            shutil.rmtree(home)
        shutil.copytree(seed, home, ignore=shutil.ignore_patterns("mirrors", "*.lock"))


def _undo_cut_questions(todo: list[Job]) -> None:
    """Before any question runs: undo what every unrecorded (cut) question saved to the carried
    memory, all together, newest write first (evals.common.journal.undo_jobs), so two cut
    questions that wrote the same key leave the value from before both; each job's payload says
    how many of its writes were undone, for its record."""
    from evals.common.memory_store import undo_cut_jobs
    from evals.hotpotqa.jobs import job_name, journals, shared_of

    if not todo or not journals(todo[0].payload.get("runner")):
        return  # nothing journaled, nothing to take back
    first = todo[0].payload
    names = {job_name(j.payload, j.payload["id"]): j for j in todo}
    embedding_model = first.get("embedding_model", "local")
    undone = undo_cut_jobs(first["home"], embedding_model, None, shared_of(first), names)
    for name, count in undone.items():
        names[name].payload["undone_writes"] = count


def summary(log: ResultsLog, questions: list[HotpotQuestion]) -> dict[str, Any]:
    """Totals and the per-question table, in question order (errors count as wrong)."""
    by_key = log.records_by_key()
    rows = [by_key[q.id] for q in questions if q.id in by_key]
    n = len(rows)
    table = format_table(
        ["question", "EM", "F1", "calls", "seconds", "answer", "gold"],
        [
            [
                r["id"][:10],
                int(r["em"]),
                r["f1"],
                r["calls"],
                r["seconds"],
                r["answer"][:30],
                r["gold"][:30],
            ]
            for r in rows
        ],
    )
    return {
        "questions": n,
        "trials": 1,
        "correct": sum(bool(r["em"]) for r in rows),
        "right": sorted(r["id"] for r in rows if r["em"]),  # question by question, for pairing
        "em": sum(bool(r["em"]) for r in rows) / n if n else 0.0,
        "f1": sum(float(r["f1"]) for r in rows) / n if n else 0.0,
        "calls": sum(int(r["calls"]) for r in rows),
        "errors": sum(r.get("error") is not None for r in rows),
        "seconds": sum(float(r["seconds"]) for r in rows),
        **{t: sum(int(r.get(t) or 0) for r in rows) for t in TOKENS},
        "seconds_per_question": sum(float(r["seconds"]) for r in rows) / n if n else 0.0,
        "table": table,
        "rows": rows,
    }
