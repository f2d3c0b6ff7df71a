"""The memory ExpeL's training phase leaves (evals.hotpotqa.expel): from each training
question's tries, a worked example when it was solved and an insight when it was solved only
after a lesson; kept.jsonl says what is in the memory and which question each came from."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from evals.hotpotqa.dataset import HotpotQuestion
from evals.hotpotqa.reflexion import question_home

TRAIN_ARM = "reflections"  # the Reflexion arm training runs (lessons between trials)
KEPT = "kept.jsonl"  # what the training memory holds, one line per memory, with provenance
SUCCESS_BATCH = 4  # solved questions shown together for one insight (ExpeL's success lists)
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
SUCCESSES_PROMPT = """These questions were answered right, each after the searches and readings \
shown:

{examples}

Write one or two sentences of advice for answering questions like these: what to search for and \
how to read the passages. Do not name any person, place, work or answer from them.
Advice:"""


@dataclass
class TrainingRun:
    """Where the training phase ran (`out`, its `corpus` when pooled), the memory home it
    fills (`home`), the model that writes insights and the embeddings memory is searched with."""

    out: Path
    corpus: Path | None
    home: Path
    model: str
    embedding_model: str = "local"


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
    t: TrainingRun, train: Sequence[HotpotQuestion], records: Sequence[dict[str, Any]]
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
            exp.wrong, exp.lesson = before["answer"], _lesson(t, q.id, job, trial - 1)
        out.append(exp)
    return out


def _lesson(t: TrainingRun, qid: str, job: str, failed_trial: int) -> str:
    """The Reflexion lesson the retry of `job` wrote on trial `failed_trial`'s answer."""
    from evals.common.memory_store import project_store
    from evals.hotpotqa.jobs import lesson_id
    from memory.agent_memory import AgentMemory

    home = question_home(t.out, TRAIN_ARM, qid)
    if not home.is_dir():
        return ""
    rid = lesson_id(job, failed_trial)
    with project_store(str(home), t.embedding_model) as store:
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
    # the chain's hops: what each found, and what it searched next (a run of before the
    # chain recorded only whether a second search was needed)
    for link in path.get("chain") or []:
        steps += [f"found: {fact}" for fact in link.get("facts") or []]
        steps += [f"search: {link['searched']}"] if link.get("searched") else []
    if path.get("first") not in (None, "agreed"):
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


def corpus_of(t: TrainingRun, q: HotpotQuestion) -> Path:
    """The folder a training question searched: the pooled corpus, or its own paragraphs'."""
    from evals.hotpotqa.agent import question_corpus

    pooled = t.corpus
    home = question_home(t.out, TRAIN_ARM, q.id)
    return pooled if pooled is not None else question_corpus(q.question, str(home))


def insight(chat: Any, exp: Experience) -> str:
    """The model's rewriting of the lesson that preceded a right retry as advice for questions
    of its kind; "" when it gave none, or one that names the question's answer."""
    prompt = INSIGHT_PROMPT.format(
        question=exp.question.question, wrong=exp.wrong or "(none)", lesson=exp.lesson
    )
    from core.output_limits import with_max_tokens

    text = str(with_max_tokens(chat, 120).invoke(prompt).content).strip()
    text = " ".join(text.split()[:INSIGHT_WORDS])
    named = exp.question.answer.lower() in text.lower() or (
        exp.wrong and exp.wrong.lower() in text.lower()
    )
    return "" if not text or named else text


def success_insight(chat: Any, batch: Sequence[tuple[Experience, Any]]) -> str:
    """ExpeL's insight from a list of successes: the model's advice for questions like the
    batch's, shown how each was answered right; "" when it gave none, or named an answer."""
    from core.output_limits import with_max_tokens

    shown = "\n\n".join(
        f"Question: {e.question.question}\nSteps: {'; '.join(w.steps[1:-1])}\n"
        f"Answer: {e.question.answer}"
        for e, w in batch
    )
    reply = with_max_tokens(chat, 120).invoke(SUCCESSES_PROMPT.format(examples=shown))
    text = " ".join(str(reply.content).split()[:INSIGHT_WORDS])
    named = any(e.question.answer.lower() in text.lower() for e, _ in batch)
    return "" if named else text


def distil(
    t: TrainingRun,
    train: Sequence[HotpotQuestion],
    records: Sequence[dict[str, Any]],
    *,
    out: TextIO,
    chat: Any = None,
) -> list[dict[str, Any]]:
    """Build the training memory (once: a finished one, with its kept.jsonl, is reused);
    returns kept.jsonl's lines."""
    done = t.home / KEPT
    if done.is_file():
        return [json.loads(line) for line in done.read_text("utf-8").splitlines() if line]
    exps = experiences(t, train, records)
    solved = [e for e in exps if e.solved]
    print(
        f"== distilling: {len(solved)} of {len(exps)} training questions solved "
        f"({sum(e.solved == 1 for e in solved)} at trial 1)",
        file=out,
        flush=True,
    )
    if t.home.exists():  # a cut distillation: start it again
        shutil.rmtree(t.home)
    kept = _write_memory(t, solved, chat)
    tmp = done.with_suffix(".tmp")
    tmp.write_text("".join(json.dumps(k) + "\n" for k in kept), "utf-8")
    os.replace(tmp, done)
    return kept


def _write_memory(
    t: TrainingRun, solved: Sequence[Experience], chat: Any = None
) -> list[dict[str, Any]]:
    from core.models import Models
    from evals.common.memory_store import project_store
    from memory.agent_memory import AgentMemory

    models = Models()
    chat = chat or models.chat(t.model)
    kept: list[dict[str, Any]] = []
    t.home.mkdir(parents=True)
    with project_store(str(t.home), t.embedding_model, models) as store:
        memory = AgentMemory(store)
        examples = [worked_example(e, passage_titles(corpus_of(t, e.question))) for e in solved]
        memory.put_workflows("research", examples)
        for e, w in zip(solved, examples, strict=True):
            kept.append({"kind": "example", "id": f"workflow:{w.name}", "from": e.question.id})
        pairs = list(zip(solved, examples, strict=True))
        batches = [pairs[i : i + SUCCESS_BATCH] for i in range(0, len(pairs), SUCCESS_BATCH)]
        asked = [([e], insight(chat, e)) for e in solved if e.lesson]  # ExpeL: a fail/success pair
        asked += [([e for e, _ in b], success_insight(chat, b)) for b in batches]  # and successes
        for sources, advice in asked:
            kept.append(_insight(memory, sources, advice))
    return kept


def _insight(memory: Any, sources: Sequence[Experience], advice: str) -> dict[str, Any]:
    """Save `advice` as an insight found by the forms of its sources' questions (none when it
    is empty); its kept.jsonl line, naming the training questions it came from. The forms, not
    the questions: a prompt shows an insight's task, and a 1.5B planner given four training
    questions there planned a search of one of them for a test question (its names gone, the
    kind of question stays to be found by)."""
    from memory.reflections.provenance import ReflectionProvenance
    from memory.reflections.schema import Reflection, ReflectionJudgment
    from memory.workflows.forms import form_text

    ids = [e.question.id for e in sources]
    line = {"kind": "insight", "id": None, "from": ids[0], "sources": ids, "text": advice}
    if not advice:
        return line
    line["id"] = memory.save_reflection(
        Reflection(
            task=" / ".join(form_text(e.question.question) for e in sources),
            reflection=advice,
            judgment=ReflectionJudgment(needs_retry=False, confidence=1.0, verdict="pass"),
            importance=0.8,
            kind="insight",
            outcome="success",
            provenance=ReflectionProvenance.of_consolidation(ids),
        )
    )
    return line
