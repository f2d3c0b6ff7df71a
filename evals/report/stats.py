"""95% intervals for evaluation numbers: Wilson for success rates, Student's t for means."""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

Z95 = 1.959964
# Two-sided 95% critical values of Student's t by degrees of freedom (standard tables); beyond
# the table the normal value is within 1% of t, so it is used instead.
_T95 = {
    1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306,
    9: 2.262, 10: 2.228, 11: 2.201, 12: 2.179, 13: 2.160, 14: 2.145, 15: 2.131, 16: 2.120,
    17: 2.110, 18: 2.101, 19: 2.093, 20: 2.086, 21: 2.080, 22: 2.074, 23: 2.069, 24: 2.064,
    25: 2.060, 26: 2.056, 27: 2.052, 28: 2.048, 29: 2.045, 30: 2.042, 40: 2.021, 60: 2.000,
    120: 1.980,
}  # fmt: skip


def p95(values: Sequence[float]) -> float:
    """The 95th percentile by nearest rank (the value 95% of the questions stay at or under)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return float(ordered[max(0, math.ceil(0.95 * len(ordered)) - 1)])


def t95(df: int) -> float:
    """The two-sided 95% critical value of t with `df` degrees of freedom (df >= 1)."""
    if df < 1:
        raise ValueError(f"t needs at least 1 degree of freedom, got {df}")
    if df > max(_T95):
        return Z95
    # Between table rows the smaller df's value is used: larger, so the interval is cautious.
    return _T95[max(b for b in _T95 if b <= df)]


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a rate; (0, 1) when nothing was tried."""
    if n <= 0:
        return 0.0, 1.0
    if not 0 <= successes <= n:
        raise ValueError(f"successes must be within 0..{n}, got {successes}")
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def mean_interval(values: Sequence[float]) -> tuple[float, float, float]:
    """(mean, low, high) with a t interval; one value gives a zero-width interval at it."""
    if not values:
        return 0.0, 0.0, 0.0
    mean = statistics.fmean(values)
    if len(values) == 1:
        return mean, mean, mean
    half = t95(len(values) - 1) * statistics.stdev(values) / math.sqrt(len(values))
    return mean, mean - half, mean + half


@dataclass(frozen=True)
class GroupSummary:
    """One row of a report table: a group's rate and means, each with its 95% interval."""

    group: dict[str, Any]
    n: int
    successes: int
    rate: float
    rate_low: float
    rate_high: float
    means: dict[str, tuple[float, float, float]]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def summarize(
    rows: Iterable[dict[str, Any]],
    by: Sequence[str],
    *,
    success: str = "success",
    metrics: Sequence[str] = ("steps", "tokens", "seconds"),
) -> list[GroupSummary]:
    """Group `rows` by the `by` fields (first-seen order) and summarise each group."""
    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for row in rows:
        groups.setdefault(tuple(row.get(k) for k in by), []).append(row)
    out = []
    for key, members in groups.items():
        wins = sum(1 for r in members if r.get(success))
        low, high = wilson(wins, len(members))
        means = {
            m: mean_interval([float(r[m]) for r in members if r.get(m) is not None])
            for m in metrics
        }
        out.append(
            GroupSummary(
                dict(zip(by, key, strict=True)),
                len(members),
                wins,
                wins / len(members),
                low,
                high,
                means,
            )
        )
    return out


def running_success(
    rows: Iterable[dict[str, Any]], *, by: str = "arm", success: str = "success"
) -> dict[str, list[tuple[float, float]]]:
    """Per `by` value, the success rate after each of its rows in the given order (the online
    setting's learning curve: x = episodes so far, y = rate so far)."""
    curves: dict[str, list[tuple[float, float]]] = {}
    wins: dict[str, int] = {}
    for row in rows:
        name = str(row.get(by))
        wins[name] = wins.get(name, 0) + int(bool(row.get(success)))
        points = curves.setdefault(name, [])
        points.append((float(len(points) + 1), wins[name] / (len(points) + 1)))
    return curves
