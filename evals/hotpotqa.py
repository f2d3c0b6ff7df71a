"""HotpotQA distractor benchmark: loading, the official EM/F1, and a pluggable question runner.

The runner takes an `AnswerFn(question, paragraphs) -> (answer, trials)` where `trials` lists
the answer after each attempt (one entry when retries are off). `default_runner` builds the
AnswerFn that drives the product's graphs (evals/hotpotqa_agent.py); any other AnswerFn can be
plugged in (evals.hotpotqa_jobs takes its builder as a `module:function`).
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

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


def default_runner(
    *,
    model: str,
    max_retries: int,
    home: str,
    graph: str = "reflective",
    reflections: bool = True,
    callbacks: Sequence[Any] = (),
    embedding_model: str = "local",
    max_tool_steps: int | None = None,
) -> AnswerFn:
    """The AnswerFn behind `eval hotpotqa`: the product's graph (`reflective` or
    `single-path`) with a search tool over the question's 10 paragraphs, its final answer cut
    to HotpotQA's short-answer form. `reflections=False` keeps past reflections out of its
    prompts (and workflows too, so an arm differs from another only by reflections);
    `embedding_model` embeds memory searches; `max_tool_steps` None is the Context's default."""
    from evals.hotpotqa_agent import make_answer_fn

    return make_answer_fn(
        model=model, max_retries=max_retries, home=home, graph_name=graph,
        reflections=reflections, callbacks=callbacks, embedding_model=embedding_model,
        max_tool_steps=max_tool_steps,
    )  # fmt: skip
