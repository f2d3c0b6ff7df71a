"""WebArena's LLM answer matching: `fuzzy_match` (is the answer the reference's meaning?) and
`ua_match` (does a report give the same reason a task cannot be done?), judged as WebArena's
own judge does, by the product's LLM judge (agents.judge) with these two prompts.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, field_validator

from agents.judge import LLMJudge, clip
from prompts.untrusted import DATA_RULE, data

FUZZY_MATCH = (
    """You grade a student's answer to a question against a reference answer.
The student may use different wording; judge whether the meaning is the same.
The string 'N/A' means 'not achievable'.

<question>
{question}
</question>

<reference_answer>
{reference}
</reference_answer>

<student_answer>
{pred}
</student_answer>

Give a one-sentence reason, then the verdict: correct, partially correct, or incorrect.
"""
    + DATA_RULE
)

UNACHIEVABLE_MATCH = (
    """A task cannot be completed for the reason below. Someone tried the task,
failed, and wrote a report. Decide whether the report refers to the same reason, even implicitly.

<task>
{question}
</task>

<reason>
{reference}
</reason>

<report>
{pred}
</report>

Give a one-sentence reason, then the verdict: same or different.
"""
    + DATA_RULE
)


class FuzzyVerdict(BaseModel):
    reason: str = Field(description="One sentence: why.")
    verdict: Literal["correct", "partially correct", "incorrect"]

    _clip_reason = field_validator("reason")(clip)


class ReasonVerdict(BaseModel):
    reason: str = Field(description="One sentence: why.")
    verdict: Literal["same", "different"]

    _clip_reason = field_validator("reason")(clip)


def _read_fuzzy(text: str) -> FuzzyVerdict | None:
    low = text.lower()
    if "partially correct" in low:
        return FuzzyVerdict(reason=text[:400], verdict="partially correct")
    if "incorrect" in low:
        return FuzzyVerdict(reason=text[:400], verdict="incorrect")
    if "correct" in low:
        return FuzzyVerdict(reason=text[:400], verdict="correct")
    return None


def _read_reason(text: str) -> ReasonVerdict | None:
    low = text.lower()
    if "different" in low:
        return ReasonVerdict(reason=text[:400], verdict="different")
    if "same" in low:
        return ReasonVerdict(reason=text[:400], verdict="same")
    return None


class AnswerJudge(LLMJudge):
    """The LLM judge with WebArena's two answer-matching questions."""

    def fuzzy_match(self, pred: str, reference: str, question: str) -> float:
        prompt = FUZZY_MATCH.format(
            question=data(question), reference=data(reference), pred=data(pred)
        )
        verdict = self.ask(FuzzyVerdict, prompt, _read_fuzzy)
        return 1.0 if verdict.verdict == "correct" else 0.0

    def ua_match(self, pred: str, reference: str, question: str) -> float:
        prompt = UNACHIEVABLE_MATCH.format(
            question=data(question), reference=data(reference), pred=data(pred)
        )
        return 1.0 if self.ask(ReasonVerdict, prompt, _read_reason).verdict == "same" else 0.0
