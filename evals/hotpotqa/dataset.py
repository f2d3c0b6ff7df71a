"""HotpotQA distractor data: the questions with their 10 paragraphs, read from a JSON file.

A question is answered by an `AnswerFn(question, paragraphs) -> (answer, trials)` where `trials`
lists the answer after each attempt (one entry when retries are off). `agent.default_runner`
builds the AnswerFn that drives the product's graphs; any other AnswerFn can be plugged in
(evals.hotpotqa.jobs takes its builder as a `module:function`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evals.common.jsonfile import read_json


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
    aliases: tuple[str, ...] = ()  # other right answers (MuSiQue's answer_aliases)
    # the paragraphs (indexes into `paragraphs`) that hold the evidence: MuSiQue names them
    # (`supporting_paragraph_idx`: its titles repeat), else those the supporting facts name
    gold: tuple[int, ...] = ()

    @property
    def answers(self) -> tuple[str, ...]:
        """Every answer scored as right: the answer, then its aliases."""
        return (self.answer, *self.aliases)


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
        supporting = tuple((str(t), int(i)) for t, i in facts)
        titles = [str(t) for t, _ in pairs]
        gold = rec.get("supporting_paragraph_idx")
        if gold is None:
            named = {t for t, _ in supporting}
            gold = [i for i, t in enumerate(titles) if t in named]
        return HotpotQuestion(
            id=str(rec.get("id") or rec["_id"]),
            question=str(rec["question"]),
            answer=str(rec["answer"]),
            paragraphs=tuple(Paragraph(str(t), tuple(map(str, s))) for t, s in pairs),
            type=str(rec.get("type", "")),
            level=str(rec.get("level", "")),
            supporting_facts=supporting,
            aliases=tuple(str(a) for a in rec.get("answer_aliases") or ()),
            gold=tuple(sorted({int(i) for i in gold if 0 <= int(i) < len(titles)})),
        )
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        problem = f"{type(exc).__name__}: {exc}"
        raise HotpotDataError(f"{where}: not a HotpotQA record ({problem})") from exc


def load_hotpotqa(path: str | Path, limit: int | None = None) -> list[HotpotQuestion]:
    """Questions from a HotpotQA JSON list (e.g. tests/data/hotpotqa/distractor_dev60.json)."""
    path = Path(path)
    data = read_json(path, "HotpotQA file", HotpotDataError)
    if not isinstance(data, list) or not data:
        raise HotpotDataError(f"{path}: expected a non-empty JSON list of questions")
    if limit is not None:
        if limit < 1:
            raise HotpotDataError(f"--limit must be at least 1, got {limit}")
        data = data[:limit]
    return [_parse_record(rec, f"{path} item {i}") for i, rec in enumerate(data)]
