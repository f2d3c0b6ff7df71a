"""Shared fixtures: an isolated data directory per test, and the in-repo third-party data."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# Third-party files the suite reads (licences and origins in tests/data/README.md).
DATA = ROOT / "tests" / "data"
sys.path.insert(0, str(ROOT))


@pytest.fixture(autouse=True)
def isolated_home(tmp_path, monkeypatch):
    """Every test writes runtime data under its own temporary AGENT_HOME."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("AGENT_HOME", str(home))
    return home


@pytest.fixture
def data_dir() -> Path:
    """The folder of third-party test data (HotpotQA, WebArena, AWM files)."""
    return DATA
