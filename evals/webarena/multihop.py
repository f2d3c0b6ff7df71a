"""MMInA multi-hop evaluation: a queue of per-hop conditions ending in END, walked along a run.

Each hop condition is satisfied by one step of the trajectory, in order: a URL reached
(WebArena's GOLD-in-PRED URL match) or an answer given (exact_match / must_include /
fuzzy_match). A step advances the queue by at most one hop. Reaching END passes the task;
otherwise the task fails at the first unmet hop, reported 1-based as FAILED_AT_HOP_k.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from evals.webarena.match import FuzzyJudge, exact_match, fuzzy_match, must_include, url_match

END = "END"
TASK_PASS = "TASK_PASS"


@dataclass(frozen=True)
class HopCondition:
    """One hop. Exactly one of the reference fields is set."""

    url: str | None = None  # reference URL(s), `|OR|` allowed
    exact_match: str | None = None
    must_include: tuple[str, ...] | None = None
    fuzzy_match: str | None = None
    question: str = ""  # the hop's sub-question, for the fuzzy judge

    def __post_init__(self) -> None:
        refs = [self.url, self.exact_match, self.must_include, self.fuzzy_match]
        if sum(r is not None for r in refs) != 1:
            raise ValueError(
                "a hop condition needs exactly one of url, exact_match, must_include, fuzzy_match"
            )

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> HopCondition:
        """{"url": ...} | {"exact_match": ...} | {"must_include": [...]} | {"fuzzy_match": ...}."""
        unknown = set(data) - {"url", "exact_match", "must_include", "fuzzy_match", "question"}
        if unknown:
            raise ValueError(f"unknown hop condition keys {sorted(unknown)}")
        includes = data.get("must_include")
        if isinstance(includes, str):
            includes = [includes]
        return cls(
            url=data.get("url"),
            exact_match=data.get("exact_match"),
            must_include=tuple(includes) if includes is not None else None,
            fuzzy_match=data.get("fuzzy_match"),
            question=data.get("question", ""),
        )


@dataclass(frozen=True)
class HopStep:
    """What one step of a run exposes to the hop checks: the page URL and any answer given."""

    url: str = ""
    answer: str | None = None


def stop_answer(action: str | None) -> str | None:
    """The answer of a `stop [answer]` action; None for any other action."""
    if not action or not action.startswith("stop"):
        return None
    start, end = action.find("["), action.rfind("]")
    return action[start + 1 : end] if 0 <= start < end else ""


def hop_steps_from_web(steps: Iterable[Any], final_url: str | None = None) -> list[HopStep]:
    """HopSteps from the web agent's trajectory (records with `url` and `action`, or dicts).

    Each step's URL is the page it acted on; `final_url` (the page after the last action)
    is appended so a hop reached by the final action still counts.
    """
    out = []
    for step in steps:
        data = step if isinstance(step, dict) else vars(step)
        out.append(HopStep(url=str(data.get("url") or ""), answer=stop_answer(data.get("action"))))
    if final_url:
        out.append(HopStep(url=final_url))
    return out


def satisfies(step: HopStep, cond: HopCondition, judge: FuzzyJudge | None = None) -> bool:
    if cond.url is not None:
        return bool(step.url) and url_match(cond.url, step.url) == 1.0
    if step.answer is None:
        return False
    if cond.exact_match is not None:
        return exact_match(cond.exact_match, step.answer) == 1.0
    if cond.must_include is not None:
        refs, answer = cond.must_include, step.answer
        return all(must_include(r, answer, tokenize=len(refs) == 1) == 1.0 for r in refs)
    assert cond.fuzzy_match is not None
    return fuzzy_match(cond.fuzzy_match, step.answer, cond.question, judge) == 1.0


@dataclass(frozen=True)
class MultihopResult:
    hops_total: int
    hops_passed: int

    @property
    def passed(self) -> bool:
        return self.hops_passed == self.hops_total

    @property
    def status(self) -> str:
        return TASK_PASS if self.passed else f"FAILED_AT_HOP_{self.hops_passed + 1}"


def evaluate_multihop(
    steps: Iterable[HopStep], conditions: Sequence[HopCondition], judge: FuzzyJudge | None = None
) -> MultihopResult:
    """Walk the run once, popping the condition queue; stop as soon as END is reached."""
    if not conditions:
        raise ValueError("a multi-hop task needs at least one hop condition")
    queue: list[HopCondition | str] = [*conditions, END]
    current = 0
    for step in steps:
        head = queue[current]
        if isinstance(head, HopCondition) and satisfies(step, head, judge):
            current += 1
        if queue[current] == END:
            break
    return MultihopResult(hops_total=len(conditions), hops_passed=current)


def summarize_multihop(results: Sequence[MultihopResult]) -> dict[str, Any]:
    """Hop success rate (hops passed / hops total), task success rate, where tasks failed,
    and first-hop success by task length (MMInA's early-hop-failure view)."""
    if not results:
        return {
            "tasks": 0,
            "hop_success_rate": 0.0,
            "task_success_rate": 0.0,
            "statuses": {},
            "first_hop_success_by_hops": {},
        }
    hops_total = sum(r.hops_total for r in results)
    by_length: dict[int, list[bool]] = {}
    for r in results:
        by_length.setdefault(r.hops_total, []).append(r.hops_passed >= 1)
    return {
        "tasks": len(results),
        "hop_success_rate": sum(r.hops_passed for r in results) / hops_total,
        "task_success_rate": sum(r.passed for r in results) / len(results),
        "statuses": dict(sorted(Counter(r.status for r in results).items())),
        "first_hop_success_by_hops": {
            n: sum(flags) / len(flags) for n, flags in sorted(by_length.items())
        },
    }
