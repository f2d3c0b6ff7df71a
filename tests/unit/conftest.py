"""Unit-test fixtures for every folder below: WebArena's 812 task configs (loaded once per
module), `wire` (the research graphs on a scripted model) and `wired` (the web graph's)."""

from __future__ import annotations

import pytest

from evals.webarena.evaluator import load_tasks
from tests.conftest import DATA

TEST_RAW = DATA / "webarena" / "test.raw.json"


@pytest.fixture(scope="module")
def tasks() -> dict[int, dict]:
    return {t["task_id"]: t for t in load_tasks(TEST_RAW)}


# `wire`: the research graphs on a scripted model (tests/unit/research_script.py)
from tests.unit.research_script import wire  # noqa: E402,F401

# `wired`: the web graph's scripted models and the project's store (tests/unit/web_fakes.py)
from tests.unit.web_fakes import wired  # noqa: E402,F401
