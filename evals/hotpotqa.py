"""HotpotQA distractor benchmark: loading, the official EM/F1, and a pluggable question runner.

The runner takes an `AnswerFn(question, paragraphs) -> (answer, trials)` where `trials` lists
the answer after each attempt (one entry when retries are off). `default_runner` builds the
AnswerFn that drives the product's graphs (evals/hotpotqa_agent.py); any other AnswerFn can be
plugged in (evals.hotpotqa_jobs takes its builder as a `module:function`).
"""

from __future__ import annotations

import re
import string
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tqdm import tqdm

from evals.jsonfile import read_json


class HotpotDataError(ValueError):
    """A HotpotQA file that cannot be read; the message names the problem."""


@dataclass(frozen=True)
class Paragraph:
    title: str
    sentences: tuple[str, ...]

    @property
    def text(self) -> str:
        return "".join(self.sentences).strip()


@dataclass(frozen=True)
class HotpotQuestion:
    id: str
    question: str
    answer: str
    paragraphs: tuple[Paragraph, ...]
    type: str = ""
    level: str = ""
    supporting_facts: tuple[tuple[str, int], ...] = ()


AnswerFn = Callable[[str, Sequence[Paragraph]], tuple[str, Sequence[str]]]


def _parse_record(rec: Any, where: str) -> HotpotQuestion:
    try:
        ctx = rec["context"]
        # Two layouts exist: HF-style {"title": [...], "sentences": [[...]]} and the original
        # [[title, [sentences]], ...]; both are accepted.
        if isinstance(ctx, dict):
            pairs = list(zip(ctx["title"], ctx["sentences"], strict=True))
        else:
            pairs = [(p[0], p[1]) for p in ctx]
        facts = rec.get("supporting_facts", [])
        if isinstance(facts, dict):
            facts = list(zip(facts["title"], facts["sent_id"], strict=True))
        return HotpotQuestion(
            id=str(rec.get("id") or rec["_id"]),
            question=str(rec["question"]),
            answer=str(rec["answer"]),
            paragraphs=tuple(Paragraph(str(t), tuple(map(str, s))) for t, s in pairs),
            type=str(rec.get("type", "")),
            level=str(rec.get("level", "")),
            supporting_facts=tuple((str(t), int(i)) for t, i in facts),
        )
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        problem = f"{type(exc).__name__}: {exc}"
        raise HotpotDataError(f"{where}: not a HotpotQA record ({problem})") from exc


def load_hotpotqa(path: str | Path, limit: int | None = None) -> list[HotpotQuestion]:
    """Questions from a HotpotQA JSON list (e.g. ../shared/data/hotpotqa/distractor_dev60.json)."""
    path = Path(path)
    data = read_json(path, "HotpotQA file", HotpotDataError)
    if not isinstance(data, list) or not data:
        raise HotpotDataError(f"{path}: expected a non-empty JSON list of questions")
    if limit is not None:
        if limit < 1:
            raise HotpotDataError(f"--limit must be at least 1, got {limit}")
        data = data[:limit]
    return [_parse_record(rec, f"{path} item {i}") for i, rec in enumerate(data)]


def normalize_answer(s: str) -> str:
    """HotpotQA's normalisation: lower-case, drop punctuation, drop articles, collapse spaces."""
    s = s.lower()
    s = "".join(ch for ch in s if ch not in set(string.punctuation))
    s = re.sub(r"\b(a|an|the)\b", " ", s)
    return " ".join(s.split())


def exact_match_score(prediction: str, ground_truth: str) -> bool:
    return normalize_answer(prediction) == normalize_answer(ground_truth)


def f1_score(prediction: str, ground_truth: str) -> tuple[float, float, float]:
    """(F1, precision, recall) over normalised tokens; yes/no/noanswer must match exactly."""
    pred, gold = normalize_answer(prediction), normalize_answer(ground_truth)
    zero = (0.0, 0.0, 0.0)
    special = ("yes", "no", "noanswer")
    if (pred in special or gold in special) and pred != gold:
        return zero
    pred_tokens, gold_tokens = pred.split(), gold.split()
    common = Counter(pred_tokens) & Counter(gold_tokens)
    same = sum(common.values())
    if same == 0:
        return zero
    precision, recall = same / len(pred_tokens), same / len(gold_tokens)
    return 2 * precision * recall / (precision + recall), precision, recall


@dataclass
class QuestionResult:
    id: str
    question: str
    gold: str
    answer: str
    trials: list[str]
    em: bool
    f1: float
    seconds: float
    error: str | None = None


@dataclass
class HotpotRun:
    results: list[QuestionResult] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        """EM/F1 over every question (errors count as wrong), plus the per-trial curves:
        `em_at_trial[k]`   accuracy had the run stopped after trial k;
        `solved_by_trial[k]` questions with a correct answer in trials 1..k — the number
        Reflexion's 61→72-of-100 curve reports (it retries only unsolved questions)."""
        n = len(self.results)
        depth = max((len(r.trials) for r in self.results), default=0)
        em_at, solved_by = [], []
        for k in range(1, depth + 1):
            # A question that stopped early keeps its last answer for the later trials.
            upto = [(r.trials[:k] or [""], r.gold) for r in self.results]
            em_at.append(sum(exact_match_score(t[-1], gold) for t, gold in upto) / n)
            solved_by.append(sum(any(exact_match_score(a, gold) for a in t) for t, gold in upto))
        return {
            "questions": n,
            "em": sum(r.em for r in self.results) / n if n else 0.0,
            "f1": sum(r.f1 for r in self.results) / n if n else 0.0,
            "correct": sum(r.em for r in self.results),
            "errors": sum(r.error is not None for r in self.results),
            "em_at_trial": em_at,
            "solved_by_trial": solved_by,
            "seconds": sum(r.seconds for r in self.results),
        }


def run_question(q: HotpotQuestion, answer_fn: AnswerFn) -> QuestionResult:
    start = time.perf_counter()
    try:
        answer, trials = answer_fn(q.question, q.paragraphs)
        error = None
    except Exception as exc:  # one failing question must not end a long run; it is recorded
        answer, trials, error = "", [], f"{type(exc).__name__}: {exc}"
    trials = list(trials) or ([answer] if error is None else [])
    return QuestionResult(
        id=q.id,
        question=q.question,
        gold=q.answer,
        answer=answer,
        trials=trials,
        em=exact_match_score(answer, q.answer),
        f1=f1_score(answer, q.answer)[0],
        seconds=time.perf_counter() - start,
        error=error,
    )


def run_hotpotqa(
    questions: Iterable[HotpotQuestion], answer_fn: AnswerFn, *, progress: bool = True
) -> HotpotRun:
    items = list(questions)
    run = HotpotRun()
    for q in tqdm(items, desc="hotpotqa", unit="q", disable=not progress):
        run.results.append(run_question(q, answer_fn))
    return run


def default_runner(
    *,
    model: str,
    max_retries: int,
    home: str,
    graph: str = "reflective",
    reflections: bool = True,
    callbacks: Sequence[Any] = (),
) -> AnswerFn:
    """The AnswerFn behind `eval hotpotqa`: the product's graph (`reflective` or
    `single-path`) with a search tool over the question's 10 paragraphs, its final answer cut
    to HotpotQA's short-answer form. `reflections=False` keeps past reflections out of its
    prompts (and workflows too, so an arm differs from another only by reflections)."""
    from evals.hotpotqa_agent import make_answer_fn

    return make_answer_fn(
        model=model, max_retries=max_retries, home=home, graph_name=graph,
        reflections=reflections, callbacks=callbacks,
    )  # fmt: skip
