"""WebArena task configs and predictions: loading, placeholder substitution, and task scoring.

A task's score is the product of its evaluators (string_match, url_match, program_html), as in
WebArena's EvaluatorComb. Offline scoring works from a prediction (answer + final URL) and skips,
with a reason, what needs a live page or an absent LLM judge; `evaluate_live` scores a real page.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypedDict

from playwright.async_api import Page

from evals.common.jsonfile import read_json
from evals.webarena.match import EvaluationSkipped, FuzzyJudge, score_string, score_url
from evals.webarena.program_html import Helper, score_program_html

EVAL_TYPES = ("string_match", "url_match", "program_html")
LIVE_PAGE_REASON = "program_html needs a live page (the site's state after the run)"


class WebArenaConfigError(ValueError):
    """A task config or prediction file that cannot be used; the message names the problem."""


class Prediction(TypedDict, total=False):
    answer: str
    url: str


@dataclass
class TaskResult:
    """One task's outcome: `score` is None when any evaluator was skipped."""

    task_id: int
    eval_types: list[str]
    score: float | None
    parts: dict[str, float | None] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)


def site_placeholders(pairs: Iterable[str]) -> dict[str, str]:
    """["SHOPPING=http://127.0.0.1:7770", ...] → {"__SHOPPING__": "http://127.0.0.1:7770"}."""
    mapping: dict[str, str] = {}
    for pair in pairs:
        name, sep, url = pair.partition("=")
        name = name.strip().strip("_").upper()
        if not sep or not name or not url.strip():
            raise WebArenaConfigError(
                f"site mapping {pair!r} must look like SHOPPING=http://host:port"
            )
        mapping[f"__{name}__"] = url.strip().rstrip("/")
    return mapping


def substitute(value: Any, placeholders: Mapping[str, str]) -> Any:
    """Replace `__SITE__` placeholders in every string of a config (lists and dicts walked)."""
    if isinstance(value, str):
        for key, url in placeholders.items():
            value = value.replace(key, url)
        return value
    if isinstance(value, list):
        return [substitute(v, placeholders) for v in value]
    if isinstance(value, dict):
        return {k: substitute(v, placeholders) for k, v in value.items()}
    return value


def validate_task(task: Any, where: str) -> dict[str, Any]:
    """Check the fields the evaluators read; raise WebArenaConfigError naming the first gap."""
    if (
        not isinstance(task, dict)
        or "task_id" not in task
        or not isinstance(task.get("eval"), dict)
    ):
        raise WebArenaConfigError(f"{where}: a task needs 'task_id' and an 'eval' object")
    spec, tid = task["eval"], task["task_id"]
    types = spec.get("eval_types")
    if not isinstance(types, list) or not types:
        raise WebArenaConfigError(f"{where}: task {tid} has no eval.eval_types list")
    for eval_type in types:
        if eval_type not in EVAL_TYPES:
            raise WebArenaConfigError(f"{where}: task {tid} has unknown eval type {eval_type!r}")
    needs = {
        "string_match": ("reference_answers", dict),
        "url_match": ("reference_url", str),
        "program_html": ("program_html", list),
    }
    for eval_type in types:
        key, kind = needs[eval_type]
        if not isinstance(spec.get(key), kind):
            raise WebArenaConfigError(f"{where}: task {tid} ({eval_type}) needs eval.{key}")
    if "string_match" in types and not isinstance(task.get("intent"), str):
        raise WebArenaConfigError(f"{where}: task {tid} needs an 'intent' string")
    return task


def load_tasks(
    path: str | Path, placeholders: Mapping[str, str] | None = None
) -> list[dict[str, Any]]:
    """WebArena configs from a JSON file: a list (test.raw.json) or one task (config_files/N.json).

    Placeholders such as `__SHOPPING__` stay as they are unless `placeholders` maps them.
    """
    path = Path(path)
    data = read_json(path, "config file", WebArenaConfigError)
    tasks = data if isinstance(data, list) else [data]
    tasks = [validate_task(t, str(path)) for t in tasks]
    seen: set[int] = set()
    for task in tasks:
        if task["task_id"] in seen:
            raise WebArenaConfigError(f"{path}: task_id {task['task_id']} appears twice")
        seen.add(task["task_id"])
    return [substitute(t, placeholders) for t in tasks] if placeholders else tasks


def load_predictions(path: str | Path) -> dict[int, Prediction]:
    """PRED.json: {task_id: {"answer": str, "url": str}}; either field may be omitted."""
    path = Path(path)
    data = read_json(path, "predictions file", WebArenaConfigError)
    if not isinstance(data, dict):
        raise WebArenaConfigError(
            f"{path}: predictions must be an object mapping task_id to {{answer, url}}"
        )
    out: dict[int, Prediction] = {}
    for key, pred in data.items():
        try:
            task_id = int(key)
        except ValueError as exc:
            raise WebArenaConfigError(f"{path}: task id {key!r} is not an integer") from exc
        fields = ("answer", "url")
        if not isinstance(pred, dict) or not all(isinstance(pred.get(f, ""), str) for f in fields):
            raise WebArenaConfigError(f'{path}: task {key}: expected {{"answer": str, "url": str}}')
        out[task_id] = Prediction()
        for name in fields:
            if name in pred:
                out[task_id][name] = pred[name]  # type: ignore[literal-required]
    return out


def _combine(
    task: Mapping[str, Any], parts: dict[str, float | None], skipped: dict[str, str]
) -> TaskResult:
    score: float | None = None
    if not skipped:
        score = 1.0
        for part in parts.values():
            score *= part or 0.0
    return TaskResult(task["task_id"], list(task["eval"]["eval_types"]), score, parts, skipped)


def evaluate_offline(
    task: Mapping[str, Any], prediction: Prediction, judge: FuzzyJudge | None = None
) -> TaskResult:
    """Score a task from its prediction alone; program_html and judge-less fuzzy are skipped."""
    parts: dict[str, float | None] = {}
    skipped: dict[str, str] = {}
    for eval_type in task["eval"]["eval_types"]:
        try:
            if eval_type == "string_match":
                # A run that never issued `stop [answer]` has an empty answer, as in WebArena.
                parts[eval_type] = score_string(task, prediction.get("answer", ""), judge)
            elif eval_type == "url_match":
                if "url" not in prediction:
                    raise EvaluationSkipped("url_match needs the prediction's final 'url'")
                parts[eval_type] = score_url(task, prediction["url"])
            else:
                raise EvaluationSkipped(LIVE_PAGE_REASON)
        except EvaluationSkipped as skip:
            parts[eval_type] = None
            skipped[eval_type] = skip.reason
    return _combine(task, parts, skipped)


async def evaluate_live(
    task: Mapping[str, Any],
    *,
    answer: str,
    page: Page,
    judge: FuzzyJudge | None = None,
    helpers: Mapping[str, Helper] | None = None,
) -> TaskResult:
    """Score a finished run on its live page, evaluators in config order (program_html may
    navigate, so url_match listed before it sees the agent's own final URL)."""
    parts: dict[str, float | None] = {}
    skipped: dict[str, str] = {}
    for eval_type in task["eval"]["eval_types"]:
        try:
            if eval_type == "string_match":
                parts[eval_type] = score_string(task, answer, judge)
            elif eval_type == "url_match":
                parts[eval_type] = score_url(task, page.url)
            else:
                parts[eval_type] = await score_program_html(task, page, helpers=helpers)
        except EvaluationSkipped as skip:
            parts[eval_type] = None
            skipped[eval_type] = skip.reason
    return _combine(task, parts, skipped)
