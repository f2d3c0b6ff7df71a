"""bench.guard_overhead on a tiny size: both arms run on a real MiniWoB++ page and are timed."""

from __future__ import annotations

import asyncio

import pytest

pytestmark = pytest.mark.integration


def test_guard_overhead_bench_measures_both_arms() -> None:
    pytest.importorskip("miniwob", reason="MiniWoB++ pages come from pip install miniwob==1.1.0")
    from bench.guard_overhead import measure
    from browser import env as env_module
    from browser.guard import RequestGuard

    result = asyncio.run(measure(["click-button"], 1))
    assert result["samples"] == 1
    assert result["reset_guarded_s"] > 0 and result["reset_unguarded_s"] > 0
    assert result["reset_ratio"] == result["reset_guarded_s"] / result["reset_unguarded_s"]
    assert env_module.RequestGuard is RequestGuard  # the baseline never leaks into real use
