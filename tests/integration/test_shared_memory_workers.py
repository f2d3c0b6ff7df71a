"""Memory shared across workers: two Ray workers, each with its own home (its own mirror), one
real PostgreSQL server. A lesson saved on one worker is found by the other's memory search;
`eval hotpotqa --workers 2 --memory-url` keeps its memory there, each arm under its scope."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import ray  # noqa: F401  - in the dev extras CI installs: a missing Ray fails, never skips

from evals.common.workers import Job, run_jobs
from memory.stores.postgres import postgres_store

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]
TASK = "Which studio made the film that Nick Park directed in 1989?"
JOBS = "tests.integration.shared_memory_jobs"


def test_a_lesson_saved_on_one_worker_is_found_on_the_other(pg_url, tmp_path):
    scope = ["test", "workers"]
    common = {"url": pg_url, "scope": scope, "task": TASK}
    jobs = [
        Job("find", f"{JOBS}:find_lesson", {**common, "home": str(tmp_path / "b"), "wait_s": 90}),
        Job(
            "save",
            f"{JOBS}:save_lesson",
            {**common, "home": str(tmp_path / "a"), "id": "r1", "lesson": "Search the film."},
        ),
    ]
    records: dict[str, dict] = {}
    run_jobs(jobs, lambda r: records.__setitem__(r["key"], r), workers=2)
    assert records["save"]["saved"] == "r1"
    assert records["find"]["found"] == ["r1"]  # found by the other worker's own search
    assert records["find"]["worker_pid"] != records["save"]["worker_pid"]
    with postgres_store(pg_url) as shared:  # in PostgreSQL itself, under the scope
        item = shared.get(("test", "workers", "reflections", "default"), "r1")
        assert item is not None and item.value["reflection"] == "Search the film."
    # each worker mirrored into its own home; the finder's mirror holds the lesson
    assert (tmp_path / "a" / "mirrors").is_dir() and (tmp_path / "b" / "mirrors").is_dir()


def test_an_unreachable_database_is_one_clear_error(tmp_path):
    out = subprocess.run(
        [sys.executable, "main.py", "--home", str(tmp_path), "run", "What is 2+2?"]
        + ["--memory-url", "postgresql://bob:s3cret@127.0.0.1:9/none", "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 3, out.stderr[-2000:]
    assert "shared memory at postgresql://bob:***@127.0.0.1:9/none cannot be used" in out.stderr
    assert "s3cret" not in out.stderr + out.stdout
    assert "Traceback" not in out.stderr
    assert json.loads(out.stdout)["error"]["type"] == "unavailable"
