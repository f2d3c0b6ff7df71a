"""WebArena's answer and URL matching rules (StringEvaluator, URLEvaluator), as pure functions.

The semantics follow web-arena-x/webarena `evaluation_harness/evaluators.py`, quirks included,
so scores stay comparable with published WebArena numbers.
"""

from __future__ import annotations

import collections
import urllib.parse
from collections.abc import Mapping
from typing import Any, Protocol

from agents.judge import JudgeError

OR_SEPARATOR = " |OR| "
NOT_ACHIEVABLE = "N/A"


class EvaluationSkipped(Exception):
    """An evaluator cannot run in this setting (no judge, no live page); `reason` says why."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class FuzzyJudge(Protocol):
    """What `fuzzy_match` needs from an LLM judge (evals.webarena.answer_judge.AnswerJudge)."""

    def fuzzy_match(self, pred: str, reference: str, question: str) -> float: ...

    def ua_match(self, pred: str, reference: str, question: str) -> float: ...


def clean_answer(answer: str) -> str:
    """Strip, drop one pair of surrounding quotes, lower-case (WebArena's clean_answer)."""
    answer = answer.strip()
    if answer.startswith("'") and answer.endswith("'"):
        answer = answer[1:-1]
    elif answer.startswith('"') and answer.endswith('"'):
        answer = answer[1:-1]
    return answer.lower()


def exact_match(ref: str, pred: str) -> float:
    return float(clean_answer(pred) == clean_answer(ref))


def _tokens(text: str) -> list[str]:
    # Imported here: nltk takes seconds to import and only one-character references need it.
    from nltk.tokenize import word_tokenize

    # preserve_line=True skips the punkt sentence splitter, whose data cannot be downloaded here;
    # it differs from the original only when a sentence ends right after the token ("5. next").
    return word_tokenize(text, preserve_line=True)


def must_include(ref: str, pred: str, tokenize: bool = False) -> float:
    """`ref` must be a substring of `pred`; a lone one-character ref must be a whole token.

    Tokenizing stops "0" from matching inside "10" (WebArena tokenizes only when the
    reference list has a single entry; callers pass `tokenize` accordingly).
    """
    clean_ref = clean_answer(ref)
    clean_pred = clean_answer(pred)
    if tokenize and len(clean_ref) == 1 and len(_tokens(clean_ref)) == 1:
        return float(clean_ref in _tokens(clean_pred))
    return float(clean_ref in clean_pred)


def fuzzy_match(ref: str, pred: str, intent: str, judge: FuzzyJudge | None) -> float:
    # An empty answer never needs a judge: it matches only an empty reference.
    if len(pred) == 0:
        return 1.0 if len(ref) == 0 else 0.0
    if judge is None:
        raise EvaluationSkipped("fuzzy_match needs an LLM judge (pass --model)")
    try:
        return judge.fuzzy_match(pred, ref, intent)
    except JudgeError as err:  # the judge gave no verdict: skipped, never a made-up score
        raise EvaluationSkipped(err.reason) from err


def score_string(config: Mapping[str, Any], answer: str, judge: FuzzyJudge | None = None) -> float:
    """StringEvaluator: the product over every approach in `eval.reference_answers`."""
    spec = config["eval"]
    pred = clean_answer(answer)
    score = 1.0
    for approach, value in spec["reference_answers"].items():
        if approach == "exact_match":
            score *= exact_match(value, pred)
        elif approach == "must_include":
            for ref in value:
                score *= must_include(ref, pred, tokenize=len(value) == 1)
        elif approach == "fuzzy_match":
            score = _score_fuzzy(config, value, pred, score, judge)
        else:
            task_id = config.get("task_id")
            raise ValueError(f"task {task_id}: unknown reference approach {approach!r}")
    return score


def _score_fuzzy(
    config: Mapping[str, Any], value: Any, pred: str, score: float, judge: FuzzyJudge | None
) -> float:
    intent = config["intent"]
    if value != NOT_ACHIEVABLE:
        for ref in value:
            score *= fuzzy_match(ref, pred, intent, judge)
        return score
    # Unachievable task: a bare "N/A" passes; otherwise the judge checks that the answer gives
    # the annotated reason. WebArena *replaces* the running score here rather than multiplying.
    score *= exact_match(NOT_ACHIEVABLE, pred)
    if score != 1:
        if judge is None:
            raise EvaluationSkipped(
                "N/A task with an explained answer needs an LLM judge (pass --model)"
            )
        note = config["eval"].get("string_note") or config.get("string_note") or ""
        try:
            score = 1.0 * judge.ua_match(pred, note, intent)
        except JudgeError as err:
            raise EvaluationSkipped(err.reason) from err
    return score


def clean_url(url: str) -> str:
    return str(url).rstrip("/")


def parse_url(url: str) -> tuple[str, dict[str, list[str]]]:
    """(host+path without trailing slash, query parameters)."""
    parsed = urllib.parse.urlparse(url)
    return clean_url(parsed.netloc + parsed.path), urllib.parse.parse_qs(parsed.query)


def url_match(reference_url: str, pred_url: str) -> float:
    """URLEvaluator "GOLD in PRED": some reference base path is a substring of the predicted
    one, and every reference query key has one of its reference values in the prediction."""
    refs = [clean_url(u) for u in reference_url.split(OR_SEPARATOR)]
    ref_paths: list[str] = []
    ref_queries: dict[str, set[str]] = collections.defaultdict(set)
    for ref in refs:
        path, query = parse_url(ref)
        ref_paths.append(path)
        for key, values in query.items():
            ref_queries[key].update(values)
    pred_path, pred_query = parse_url(clean_url(pred_url))
    base_score = float(any(path in pred_path for path in ref_paths))
    query_score = 1.0
    for key, allowed in ref_queries.items():
        query_score *= float(any(v in pred_query.get(key, []) for v in allowed))
    return base_score * query_score


def score_url(config: Mapping[str, Any], pred_url: str) -> float:
    spec = config["eval"]
    rule = spec.get("url_note") or "GOLD in PRED"
    if rule != "GOLD in PRED":
        raise ValueError(f"task {config.get('task_id')}: unknown url matching rule {rule!r}")
    return url_match(spec["reference_url"], pred_url)
