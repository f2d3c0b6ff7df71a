"""The LLM judge: one chat model asked for a verdict schema, with bounded attempts. The web
graph's finish node asks it whether an episode succeeded (its prompt is the node's, in
prompts/web.py); the WebArena evaluation's answer matching builds on it
(evals/webarena/answer_judge.py).

Works with any chat model: structured output when the model supports it, else its plain text
is read for the verdict word (as WebArena's own judge does). Attempts are bounded; a model that
never gives a verdict raises JudgeError rather than producing a made-up score.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Self, TypeVar

from langchain_core.exceptions import OutputParserException
from langchain_core.language_models import BaseChatModel
from pydantic import BaseModel, Field, ValidationError, field_validator

from core.models import Models
from core.structured import told
from prompts.web import JUDGMENT_SCHEMA

log = logging.getLogger(__name__)
T = TypeVar("T", bound=BaseModel)
# Characters per token when sizing the trajectory to a model's context; low on purpose because
# accessibility trees tokenize densely.
CHARS_PER_TOKEN = 3
PROMPT_RESERVE_TOKENS = 700
# Page observations are long; the judge needs the gist of each, the actions in full.
OBSERVATION_CHARS = 300
SKIPPED_STEP_KEYS = frozenset({"index", "raw", "seconds"})


class JudgeError(RuntimeError):
    """The judge model gave no usable verdict within its attempts; `reason` says why (a run is
    then left unjudged, never scored by a made-up verdict)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


REASON_CHARS = 400


def clip(text: str) -> str:
    # Cut, not rejected: a grammar-constrained answer always parses, and a long reason must
    # not turn a valid verdict into a failed attempt (grammars carry no string lengths).
    return text[:REASON_CHARS]


class EpisodeJudgment(BaseModel):
    """Whether a run achieved its task; gates online workflow induction."""

    model_config = told(JUDGMENT_SCHEMA)
    reasons: list[str] = Field(description=JUDGMENT_SCHEMA["reasons"], max_length=3)
    success: bool = Field(description=JUDGMENT_SCHEMA["success"])

    @field_validator("reasons")
    @classmethod
    def _clip_reasons(cls, reasons: list[str]) -> list[str]:
        return [clip(r) for r in reasons]


def read_episode(text: str) -> EpisodeJudgment | None:
    """The verdict in a plain-text reply (a model without structured output), else None."""
    low = text.lower()
    reasons = [line.strip() for line in text.splitlines() if line.strip()][:3]
    if "fail" in low or "not succe" in low or "unsuccessful" in low:
        return EpisodeJudgment(reasons=reasons, success=False)
    if "success" in low or "succeeded" in low:
        return EpisodeJudgment(reasons=reasons, success=True)
    return None


def _step_text(step: Any) -> str:
    """One step as "key: value; ..." (bookkeeping fields dropped, observations shortened)."""
    if hasattr(step, "to_dict"):  # browser.trajectory.TrajectoryStep and similar records
        step = step.to_dict()
    if not isinstance(step, Mapping):
        return str(step)
    parts = []
    for key, value in step.items():
        if key in SKIPPED_STEP_KEYS or value in (None, "") or (key == "valid" and value):
            continue
        text = str(value)
        if key == "observation" and len(text) > OBSERVATION_CHARS:
            text = text[:OBSERVATION_CHARS] + " …"
        parts.append(f"{key}: {text}")
    return "; ".join(parts)


def episode_text(steps: Sequence[Any], max_chars: int) -> str:
    """Numbered steps, newest kept when the record is longer than `max_chars`.

    Steps may be strings, mappings, or records with `to_dict()` (the web agent's steps).
    """
    lines = [f"{i}. {_step_text(step)}" for i, step in enumerate(steps, 1)]
    kept: list[str] = []
    used = 0
    for line in reversed(lines):
        if used + len(line) > max_chars and kept:
            break
        kept.append(line[:max_chars])
        used += len(line) + 1
    omitted = len(lines) - len(kept)
    head = [f"... ({omitted} earlier steps omitted)"] if omitted else []
    return "\n".join(head + list(reversed(kept))) or "(no steps recorded)"


class LLMJudge:
    """Judge answers and episodes with one chat model (any provider, or the local model)."""

    def __init__(
        self, model: BaseChatModel, *, attempts: int = 3, max_trajectory_chars: int = 6000
    ) -> None:
        self.model = model
        self.attempts = attempts
        window = getattr(model, "context_window", None)
        if isinstance(window, int) and window > PROMPT_RESERVE_TOKENS:
            max_trajectory_chars = min(
                max_trajectory_chars, (window - PROMPT_RESERVE_TOKENS) * CHARS_PER_TOKEN
            )
        self.max_trajectory_chars = max_trajectory_chars

    @classmethod
    def from_spec(cls, spec: str, models: Models | None = None, **kwargs: Any) -> Self:
        """Build from a model string ('local', 'openai:gpt-4o-mini', ...), taken from `models`
        (the caller's; else built for this judge)."""
        return cls((models or Models()).chat(spec), **kwargs)

    def ask(self, schema: type[T], prompt: str, read_text: Callable[[str], T | None]) -> T:
        try:
            runnable: Any = self.model.with_structured_output(schema)
        except NotImplementedError:
            # Models without tool calling or JSON mode: read the verdict from plain text.
            runnable = None
        problems: list[str] = []
        for _ in range(self.attempts):
            try:
                if runnable is not None:
                    out = runnable.invoke(prompt)
                    if out is not None:
                        return out if isinstance(out, schema) else schema.model_validate(out)
                    problems.append("empty structured output")
                    continue
                text = self.model.invoke(prompt).text
                parsed = read_text(text)
                if parsed is not None:
                    return parsed
                problems.append(f"no verdict in {text[:80]!r}")
            except (OutputParserException, ValidationError, ValueError) as exc:
                problems.append(str(exc).splitlines()[0][:120])
        log.warning("%s judge failed: %s", schema.__name__, problems)
        raise JudgeError(
            f"judge gave no valid {schema.__name__} in {self.attempts} attempts; "
            f"last: {problems[-1]}"
        )
