"""95% intervals: Wilson for rates, t for means, and grouping rows into report rows."""

from __future__ import annotations

import pytest

from evals.report.stats import mean_interval, summarize, t95, wilson


def test_wilson_matches_published_values() -> None:
    # Wilson (1927) / Newcombe (1998) table: 81 of 263 -> 0.2553 .. 0.3662.
    low, high = wilson(81, 263)
    assert low == pytest.approx(0.2553, abs=1e-4) and high == pytest.approx(0.3662, abs=1e-4)
    assert wilson(0, 10)[0] == 0.0 and wilson(0, 10)[1] == pytest.approx(0.2775, abs=1e-4)
    assert wilson(10, 10)[1] == pytest.approx(1.0) and wilson(10, 10)[0] == pytest.approx(
        0.7225, abs=1e-4
    )
    assert wilson(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError):
        wilson(5, 3)


def test_t_interval_for_means() -> None:
    mean, low, high = mean_interval([1.0, 2.0, 3.0, 4.0])
    # stdev 1.291, t(3) = 3.182 -> half-width 2.054
    assert (
        mean == 2.5
        and low == pytest.approx(0.446, abs=1e-3)
        and high == pytest.approx(4.554, abs=1e-3)
    )
    assert mean_interval([7.0]) == (7.0, 7.0, 7.0)
    assert mean_interval([]) == (0.0, 0.0, 0.0)
    assert t95(1) == 12.706 and t95(35) == 2.042 and t95(500) == pytest.approx(1.96, abs=1e-3)
    with pytest.raises(ValueError):
        t95(0)


def test_summarize_groups_in_first_seen_order() -> None:
    rows = [
        {"arm": "b", "family": "x", "success": True, "steps": 2, "tokens": 10, "seconds": 1.0},
        {"arm": "a", "family": "x", "success": False, "steps": 4, "tokens": 30, "seconds": 3.0},
        {"arm": "b", "family": "y", "success": False, "steps": 6, "tokens": 50, "seconds": 5.0},
    ]
    by_arm = summarize(rows, ["arm"])
    assert [s.group["arm"] for s in by_arm] == ["b", "a"]
    b = by_arm[0]
    assert (b.n, b.successes, b.rate) == (2, 1, 0.5)
    assert b.means["steps"][0] == 4.0 and b.means["tokens"][0] == 30.0
    assert (b.rate_low, b.rate_high) == wilson(1, 2)
    per_family = summarize(rows, ["arm", "family"])
    assert [tuple(s.group.values()) for s in per_family] == [("b", "x"), ("a", "x"), ("b", "y")]
