"""`eval hotpotqa --train FILE --train-limit N`: ExpeL's protocol (Zhao et al. 2023) on the
research job. Memory is gathered on training questions whose answers are known, then read by
*different* questions:

1. **Training** (OUT/train): each of the first N questions of FILE is answered by the reflective
   graph and scored against its true answer; a wrong one is retried with Reflexion's lesson
   until right or out of `--trials` (evals.hotpotqa.reflexion, arm `reflections`: each
   question keeps its own memory, so training questions do not see each other).
2. **Distilling** (OUT/train/distilled, a memory home, and kept.jsonl saying what is in it and
   where it came from): every solved question leaves a *worked example* (a workflow whose
   description is the question, so a question like it finds it by meaning: what was searched,
   the passages its answer was read in, the answer), and every question solved only after a
   lesson leaves an *insight*, the model's rewriting of that lesson as advice for any question
   of its kind (never one naming its answer).
3. **Test** (OUT/ARM): the `--file` questions not trained on, answered by the same graph per arm,
   each from fresh memory: `no-memory` from empty memory; `train-memory` from a copy of the
   training memory (what a test question writes stays in its own copy: memory read-only across
   the test questions).

Every phase resumes from OUT. The report keys each arm by name (em with its 95% interval, n,
calls, seconds), says which memories reached which test prompts (the training questions they
came from), and compares calls on the test questions a worked example reached.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TextIO

from evals.hotpotqa.dataset import HotpotQuestion, load_hotpotqa
from evals.hotpotqa.pooled import pooled_corpus
from evals.hotpotqa.reflexion import ReflexionSettings, question_home, run_reflexion
from evals.hotpotqa.single import HotpotSettings, run_single

ARMS = ("no-memory", "train-memory")
TRAIN_ARM = "reflections"  # the Reflexion arm training runs (lessons between trials)
KEPT = "kept.jsonl"  # what the training memory holds, one line per memory, with provenance
INSIGHT_WORDS = 60  # an insight is one or two sentences of advice
INSIGHT_PROMPT = """A question was first answered wrong; after the lesson below, a retry answered \
it right.

Question: {question}
Wrong answer: {wrong}
Lesson: {lesson}

Write one or two sentences of advice for answering other questions of this kind. Say what to \
search for or how to read the passages. Do not name any person, place, work or answer from \
this question.
Advice:"""


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
            corpus=pooled_corpus(self.train, out).resolve() if pooled else None,
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
    kept = distil(s, train, log.records(), out=stream, chat=chat)
    by_arm: dict[str, list[dict[str, Any]]] = {}
    for name in s.arms:
        print(f"== test arm {name} ({len(test)} questions)", file=stream, flush=True)
        records = run_single(s.arm(name), test, out=out).records_by_key()
        by_arm[name] = [{**records[q.id], "arm": name} for q in test if q.id in records]
    return {"training": log.records(), "kept": kept, "by_arm": by_arm, "test": test}


# -- distilling --------------------------------------------------------------------------------
@dataclass
class Experience:
    """One training question's tries: solved on which trial (None: never), the solving try's
    path, and the answer and lesson that preceded it."""

    question: HotpotQuestion
    solved: int | None
    path: dict[str, Any]  # evals.hotpotqa.agent.path_of
    wrong: str = ""
    lesson: str = ""


def experiences(
    s: ExpelSettings, train: Sequence[HotpotQuestion], records: Sequence[dict[str, Any]]
) -> list[Experience]:
    """Each training question's experience, from the training records and its own memory."""
    from evals.hotpotqa.jobs import job_name

    mine = [r for r in records if r.get("arm") == TRAIN_ARM and not r.get("error")]
    out = []
    for q in train:
        tries = sorted((r for r in mine if r["id"] == q.id), key=lambda r: int(r["trial"]))
        right = next((r for r in tries if r["em"]), None)
        if right is None:
            out.append(Experience(q, None, {}))
            continue
        trial = int(right["trial"])
        exp = Experience(q, trial, dict(right.get("path") or {}))
        if trial > 1:
            before = next(r for r in tries if int(r["trial"]) == trial - 1)
            job = job_name({"trial": trial}, q.id)
            exp.wrong, exp.lesson = before["answer"], _lesson(s, q.id, job, trial - 1)
        out.append(exp)
    return out


def _lesson(s: ExpelSettings, qid: str, job: str, failed_trial: int) -> str:
    """The Reflexion lesson the retry of `job` wrote on trial `failed_trial`'s answer."""
    from evals.common.memory_store import project_store
    from evals.hotpotqa.jobs import lesson_id
    from memory.agent_memory import AgentMemory

    home = question_home(s.training().out, TRAIN_ARM, qid)
    if not home.is_dir():
        return ""
    rid = lesson_id(job, failed_trial)
    with project_store(str(home), s.embedding_model) as store:
        found = [r for r in AgentMemory(store).list_reflections() if r.id == rid]
    return found[0].reflection if found else ""


def worked_example(exp: Experience, titles: dict[str, str] | None = None) -> Any:
    """The solved question as a workflow: its description the question's form (names left
    out), so a question of the same kind finds it (memory_block also searches by the prompt's
    form); its steps what was searched and read, and the answer, as plain lines (a planner's
    prompt shows one-argument calls as bare text). `titles` names the passages its answer
    cited (`passages.jsonl:N` -> title)."""
    from memory.labels import slugify
    from memory.workflows.forms import form_text
    from memory.workflows.types import Provenance, Workflow

    q, path, titles = exp.question, exp.path, titles or {}
    steps = [f"question: {q.question}", f"search: {q.question}"]
    if path.get("first") not in (None, "agreed"):  # the first readings left it to a hop
        steps.append("search: the question with the answers read so far")
    steps += [f"search: {task}" for task in path.get("tasks") or []]
    cited = (c if isinstance(c, str) else titles.get(c.get("source", "")) for c in path["cited"])
    steps += [f"read: {title}" for title in dict.fromkeys(cited) if title]
    steps.append(f"answer: {q.answer}")
    return Workflow(
        name=f"solved_{slugify(q.id)[:16]}",
        description=f"A solved question of this kind: {form_text(q.question)}",
        steps=steps,
        provenance=Provenance(
            website="research", origin="training", sources=[q.id], template=f"example: {q.id}"
        ),
    )


def passage_titles(folder: Path) -> dict[str, str]:
    """`passages.jsonl:N` (how a citation names the corpus's Nth line) -> that passage's title."""
    target = folder / "passages.jsonl"
    if not target.is_file():
        return {}
    lines = target.read_text("utf-8").splitlines()
    return {
        f"passages.jsonl:{n}": str(json.loads(line).get("title", ""))
        for n, line in enumerate(lines, 1)
        if line.strip()
    }


def corpus_of(s: ExpelSettings, q: HotpotQuestion) -> Path:
    """The folder a training question searched: the pooled corpus, or its own paragraphs'."""
    from evals.hotpotqa.agent import question_corpus

    pooled = s.training().corpus
    home = question_home(s.training().out, TRAIN_ARM, q.id)
    return pooled if pooled is not None else question_corpus(q.question, str(home))


def insight(chat: Any, exp: Experience) -> str:
    """The model's rewriting of the lesson that preceded a right retry as advice for questions
    of its kind; "" when it gave none, or one that names the question's answer."""
    prompt = INSIGHT_PROMPT.format(
        question=exp.question.question, wrong=exp.wrong or "(none)", lesson=exp.lesson
    )
    from core.output_budget import with_max_tokens

    text = str(with_max_tokens(chat, 120).invoke(prompt).content).strip()
    text = " ".join(text.split()[:INSIGHT_WORDS])
    named = exp.question.answer.lower() in text.lower() or (
        exp.wrong and exp.wrong.lower() in text.lower()
    )
    return "" if not text or named else text


def distil(
    s: ExpelSettings,
    train: Sequence[HotpotQuestion],
    records: Sequence[dict[str, Any]],
    *,
    out: TextIO,
    chat: Any = None,
) -> list[dict[str, Any]]:
    """Build the training memory (once: a finished one, with its kept.jsonl, is reused);
    returns kept.jsonl's lines."""
    done = s.memory_home / KEPT
    if done.is_file():
        return [json.loads(line) for line in done.read_text("utf-8").splitlines() if line]
    exps = experiences(s, train, records)
    solved = [e for e in exps if e.solved]
    print(
        f"== distilling: {len(solved)} of {len(exps)} training questions solved "
        f"({sum(e.solved == 1 for e in solved)} at trial 1)",
        file=out,
        flush=True,
    )
    if s.memory_home.exists():  # a cut distillation: start it again
        shutil.rmtree(s.memory_home)
    kept = _write_memory(s, solved, chat)
    tmp = done.with_suffix(".tmp")
    tmp.write_text("".join(json.dumps(k) + "\n" for k in kept), "utf-8")
    os.replace(tmp, done)
    return kept


def _write_memory(
    s: ExpelSettings, solved: Sequence[Experience], chat: Any = None
) -> list[dict[str, Any]]:
    from core.models import Models
    from evals.common.memory_store import project_store
    from memory.agent_memory import AgentMemory
    from memory.reflections.provenance import ReflectionProvenance
    from memory.reflections.schema import Reflection, ReflectionJudgment

    models = Models()
    chat = chat or models.chat(s.base.model)
    kept: list[dict[str, Any]] = []
    s.memory_home.mkdir(parents=True)
    with project_store(str(s.memory_home), s.embedding_model, models) as store:
        memory = AgentMemory(store)
        examples = [worked_example(e, passage_titles(corpus_of(s, e.question))) for e in solved]
        memory.put_workflows("research", examples)
        for e, w in zip(solved, examples, strict=True):
            kept.append({"kind": "example", "id": f"workflow:{w.name}", "from": e.question.id})
        for e in (e for e in solved if e.lesson):
            advice = insight(chat, e)
            if not advice:
                kept.append({"kind": "insight", "id": None, "from": e.question.id, "text": ""})
                continue
            rid = memory.save_reflection(
                Reflection(
                    task=e.question.question,
                    reflection=advice,
                    judgment=ReflectionJudgment(needs_retry=False, confidence=1.0, verdict="pass"),
                    importance=0.8,
                    kind="insight",
                    outcome="success",
                    provenance=ReflectionProvenance.of_consolidation([e.question.id]),
                )
            )
            kept.append({"kind": "insight", "id": rid, "from": e.question.id, "text": advice})
    return kept
