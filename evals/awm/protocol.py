"""The AWM protocol on MiniWoB++ (Wang et al. 2024), with a train/test split and five arms.

offline: each workflow arm first induces workflows from the scripted oracle's demonstrations on
  the training seeds (the annotated examples); arms with reflections first run the training
  seeds and reflect on each; then every arm runs the test seeds with its memory frozen (no
  induction, no lessons, no trajectory recorded, so no test episode is a later one's past run).
online: each arm streams the test seeds of each family in order; after every episode judged a
  success by MiniWoB's reward the web agent induces workflows (arms with workflows), and after
  every episode arms with reflections write its lesson; both are used from the next episode.

Training and test seeds never overlap; every arm runs the same test seeds. Each (arm, family)
has its own data directory under OUT/memory and is one chain of jobs (evals.common.workers), so
families and arms run in parallel with --workers and each stream stays in order. Every finished
job is one line of OUT/results.jsonl; a rerun with the same OUT skips what is done.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from evals.awm.arms import Arm, check_available
from evals.common.progress import ProgressMeter, format_duration
from evals.common.results_log import ResultsLog
from evals.common.workers import Job, run_jobs

SETTINGS = ("offline", "online")
DEFAULT_FAMILIES = (
    "enter-text",
    "login-user",
    "enter-password",
    "click-checkboxes",
    "click-option",
    "choose-list",
    "find-word",
    "click-collapsible",
    "simple-arithmetic",
    "read-table",
    "multi-orderings",
    "enter-text-2",
)


@dataclass
class AwmSettings:
    setting: str
    families: list[str]
    arms: list[Arm]
    out: Path
    episodes: int = 20  # test episodes per family
    model: str = "local"
    max_steps: int = 10
    test_seed: int = 0  # test seeds: test_seed .. test_seed + episodes - 1
    train_seed: int = 1000  # training seeds: train_seed .. (disjoint from the test seeds)
    train_episodes: int = 5
    induction: str = "rule"
    embedding_model: str = "local"
    workers: int = 1
    ray_address: str | None = None
    job_fn: str = "evals.awm.jobs:agent_episode"
    induce_fn: str = "evals.awm.jobs:offline_workflows"
    extra: dict[str, Any] = field(default_factory=dict)

    def validate(self) -> None:
        if self.setting not in SETTINGS:
            raise ValueError(f"--setting must be offline or online, not {self.setting!r}")
        if self.induction not in ("rule", "llm"):
            raise ValueError(f"--induction must be rule or llm, not {self.induction!r}")
        if self.episodes < 1 or self.max_steps < 1 or self.train_episodes < 1:
            raise ValueError("--episodes, --max-steps and --train-episodes must be at least 1")
        test = set(range(self.test_seed, self.test_seed + self.episodes))
        train = set(range(self.train_seed, self.train_seed + self.train_episodes))
        if self.setting == "offline" and test & train:
            raise ValueError("training and test seeds overlap: move --train-seed")
        check_available(self.arms)

    def identity(self) -> dict[str, Any]:
        """What must match for a rerun to resume the same experiment."""
        return {
            "setting": self.setting,
            "model": self.model,
            "max_steps": self.max_steps,
            "test_seed": self.test_seed,
            "train_seed": self.train_seed,
            "train_episodes": self.train_episodes,
            "induction": self.induction,
            "embedding_model": self.embedding_model,
        }


def plan_jobs(s: AwmSettings) -> list[Job]:
    """Every job of the experiment; one chain per (arm, family), in the order it must run."""
    jobs = []
    for arm in s.arms:
        for family in s.families:
            jobs += _chain(s, arm, family)
    return jobs


def _chain(s: AwmSettings, arm: Arm, family: str) -> list[Job]:
    home = str(s.out / "memory" / arm.name / family)
    chain, prefix = f"{arm.name}/{family}", f"{s.setting}/{arm.name}/{family}"
    online = s.setting == "online"
    induction = s.induction if online and arm.workflows else "off"
    base: dict[str, Any] = {
        "arm": arm.name,
        "setting": s.setting,
        "family": family,
        "home": home,
        "model": s.model,
        "max_steps": s.max_steps,
        "embedding_model": s.embedding_model,
        "online_induction": induction,
        **s.extra,
    }
    jobs = []
    if not online and arm.workflows:
        seeds = list(range(s.train_seed, s.train_seed + s.train_episodes))
        payload: dict[str, Any] = {
            "family": family,
            "seeds": seeds,
            "home": home,
            "induction": s.induction,
            "model": s.model,
            "embedding_model": s.embedding_model,
        }
        jobs.append(Job(f"{prefix}/induce", s.induce_fn, payload, chain=chain))
    if not online and arm.reflections:
        for i in range(s.train_episodes):
            seed = s.train_seed + i
            payload = {**base, "phase": "train", "seed": seed, "position": i, "reflect": True}
            jobs.append(Job(f"{prefix}/train/{seed}", s.job_fn, payload, chain=chain))
    for i in range(s.episodes):
        seed = s.test_seed + i
        payload = {
            **base,
            "phase": "test",
            "seed": seed,
            "position": i,
            "reflect": online and arm.reflections,
            "frozen": not online,
        }
        jobs.append(Job(f"{prefix}/test/{seed}", s.job_fn, payload, chain=chain))
    return jobs


def run_protocol(s: AwmSettings, *, out: TextIO | None = None) -> ResultsLog:
    """Run (or resume) the experiment; returns the results log with every record."""
    s.validate()
    log = ResultsLog(s.out / "results.jsonl", s.identity())
    jobs = plan_jobs(s)
    todo = [j for j in jobs if j.key not in log]
    meter = ProgressMeter(f"awm-miniwob {s.setting}", len(jobs), out=out or sys.stderr)
    done = [r for r in log.records() if r["key"] in {j.key for j in jobs}]
    tests = [r for r in done if r.get("phase") == "test"]
    meter.resume(len(done), sum(bool(r["success"]) for r in tests), len(tests))
    meter.start_line(f"({len(s.arms)} arms x {len(s.families)} families, workers {s.workers})")

    def on_result(record: dict[str, Any]) -> None:
        log.append(record)
        test = record.get("phase") == "test"
        note = f"{record.get('arm')}/{record.get('family')} seed={record.get('seed', '-')}"
        if not test:
            note += f" ({record.get('phase', 'induce')})"
        meter.update(bool(record["success"]) if test else None, note)

    run_jobs(todo, on_result, workers=s.workers, ray_address=s.ray_address)
    return log


def scored_records(log: ResultsLog, s: AwmSettings) -> list[dict[str, Any]]:
    """This experiment's test episodes, in plan order (arm, family, seed)."""
    keys = [j.key for j in plan_jobs(s) if j.payload.get("phase") == "test"]
    by_key = {r["key"]: r for r in log.records()}
    return [by_key[k] for k in keys if k in by_key]


def estimate_line(records: list[dict[str, Any]], full_jobs: int, workers: int) -> str:
    """`at N s/episode, the full experiment (J episodes) takes ~T with W workers`."""
    seconds = [float(r["seconds"]) for r in records if r.get("seconds") is not None]
    if not seconds:
        return "no finished episode to estimate from"
    pace = sum(seconds) / len(seconds)
    total = pace * full_jobs / max(1, workers)
    return (
        f"at {pace:.1f} s/episode, {full_jobs} episodes take ~{format_duration(total)} "
        f"with {workers} worker(s)"
    )
