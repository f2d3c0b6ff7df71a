"""Unit-test fixtures: WebArena's 812 task configs, loaded once per module."""

from __future__ import annotations

from pathlib import Path

import pytest

from evals.webarena.evaluator import load_tasks

TEST_RAW = Path(__file__).resolve().parents[1] / "data" / "webarena" / "test.raw.json"


@pytest.fixture(scope="module")
def tasks() -> dict[int, dict]:
    return {t["task_id"]: t for t in load_tasks(TEST_RAW)}


# `wire`: the research graphs on a scripted model (tests/unit/research_script.py)
from tests.unit.research_script import wire  # noqa: E402,F401
