"""`eval hotpotqa --train FILE --train-limit N`: ExpeL's protocol (Zhao et al. 2023) on the
research job. Memory is gathered on training questions whose answers are known, then read by
*different* questions:

1. **Training** (OUT/train): each of the first N questions of FILE is answered by the reflective
   graph and scored against its true answer; a wrong one is retried with Reflexion's lesson
   until right or out of `--trials` (evals.hotpotqa.reflexion, arm `reflections`: each
   question keeps its own memory, so training questions do not see each other).
2. **Distilling** (evals.hotpotqa.expel_memory: OUT/train/distilled, a memory home, and
   kept.jsonl saying what is in it and where it came from): every solved question leaves a
   *worked example* (a workflow found by the form of its question: what was searched, the
   passages its answer was read in, the answer), and every question solved only after a lesson
   leaves an *insight*, the model's rewriting of that lesson as advice for any question of its
   kind (never one naming its answer).
3. **Test** (OUT/ARM): the `--file` questions not trained on, answered by the same graph per arm,
   each from fresh memory: `no-memory` from empty memory; `train-memory` from a copy of the
   training memory (what a test question writes stays in its own copy: memory read-only across
   the test questions).

Every phase resumes from OUT. The report keys each arm by name (em with its 95% interval, n,
calls, seconds), says which memories reached which test prompts (the training questions they
came from), and compares calls on the test questions a worked example reached.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TextIO

from evals.hotpotqa.dataset import HotpotQuestion, load_hotpotqa
from evals.hotpotqa.expel_memory import TRAIN_ARM, TrainingRun, distil
from evals.hotpotqa.pooled import pooled_corpus
from evals.hotpotqa.reflexion import ReflexionSettings, run_reflexion
from evals.hotpotqa.single import HotpotSettings, run_single

ARMS = ("no-memory", "train-memory")


@dataclass
class ExpelSettings:
    """Training on the first `train_limit` questions of `train`; testing on the questions of
    `file` not trained on (the first `limit` of them), with the graph's other settings
    (`base`: model, retries, setting, workers) the same in both phases."""

    base: HotpotSettings
    train: Path
    train_limit: int
    trials: int = 2
    arms: list[str] = field(default_factory=lambda: list(ARMS))
    embedding_model: str = "local"  # what memory is searched with, in both phases

    def validate(self) -> None:
        self.base.validate()
        if self.base.graph != "reflective":
            raise ValueError("--train gathers memory with the reflective graph: --graph reflective")
        if self.base.memory != "fresh" or self.base.memory_url:
            raise ValueError("--train keeps each test question's memory its own: --memory fresh")
        if self.train_limit < 1 or self.trials < 1:
            raise ValueError("--train-limit and --trials must be at least 1")
        unknown = [a for a in self.arms if a not in ARMS]
        if unknown or not self.arms:
            raise ValueError(f"unknown arm(s) {unknown}; choose from {', '.join(ARMS)}")

    @property
    def memory_home(self) -> Path:
        return self.base.out / "train" / "distilled"

    def training(self) -> ReflexionSettings:
        out = self.base.out / "train"
        pooled = self.base.setting == "pooled"
        searched = self.base.pooled() if self.base.pool else self.train  # its pool, or its own
        return ReflexionSettings(
            file=self.train,
            out=out,
            arms=[TRAIN_ARM],
            trials=self.trials,
            limit=self.train_limit,
            model=self.base.model,
            max_retries=self.base.max_retries,
            workers=self.base.workers,
            ray_address=self.base.ray_address,
            runner=self.base.runner,
            embedding_model=self.embedding_model,
            corpus=pooled_corpus(searched, out).resolve() if pooled else None,
        )

    def trained(self) -> TrainingRun:
        training = self.training()
        return TrainingRun(
            training.out, training.corpus, self.memory_home, self.base.model, self.embedding_model
        )

    def arm(self, name: str) -> HotpotSettings:
        seed = self.memory_home if name == "train-memory" else None
        return replace(self.base, out=self.base.out / name, seed=seed)


def split(s: ExpelSettings) -> tuple[list[HotpotQuestion], list[HotpotQuestion]]:
    """(training questions, test questions): the first `train_limit` of the training file, and
    the questions of `--file` that are not among them (the first `--limit` of those)."""
    train = load_hotpotqa(s.train, s.train_limit)
    seen = {q.id for q in train}
    test = [q for q in load_hotpotqa(s.base.file) if q.id not in seen]
    test = test[: s.base.limit] if s.base.limit else test
    if not test:
        raise ValueError(f"every question of {s.base.file} is a training question: none to test")
    return train, test


def run_expel(s: ExpelSettings, *, out: TextIO | None = None, chat: Any = None) -> dict[str, Any]:
    """Train, distil and test (each phase resumed from OUT); the arms' records and what the
    training memory holds. `chat` writes the insights (default: the run's model)."""
    s.validate()
    train, test = split(s)
    stream = out or sys.stderr
    print(f"== training on {len(train)} questions, up to {s.trials} trials", file=stream)
    log = run_reflexion(s.training(), out=out)
    kept = distil(s.trained(), train, log.records(), out=stream, chat=chat)
    by_arm: dict[str, list[dict[str, Any]]] = {}
    for name in s.arms:
        print(f"== test arm {name} ({len(test)} questions)", file=stream, flush=True)
        records = run_single(s.arm(name), test, out=out).records_by_key()
        by_arm[name] = [{**records[q.id], "arm": name} for q in test if q.id in records]
    return {"training": log.records(), "kept": kept, "by_arm": by_arm, "test": test}
