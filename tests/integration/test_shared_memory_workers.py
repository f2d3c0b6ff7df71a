"""Memory shared across workers: two Ray workers, each with its own home (its own mirror), one
real PostgreSQL server. A lesson saved on one worker is found by the other's memory search;
`eval hotpotqa --workers 2 --memory-url` keeps its memory there, each arm under its scope."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
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


def test_a_worker_waiting_to_set_up_never_stalls_the_one_setting_up(pg_url):
    """Two workers on a fresh database: while one sets it up (PostgresStore.setup, whose
    `CREATE INDEX CONCURRENTLY` waits for every running statement), the other waits for the
    setup lock. Blocked inside `pg_advisory_lock` it would be such a statement, and each would
    wait for the other for ever; it tries the lock between short sleeps instead, and gives up
    with a clear error past its wait."""
    import psycopg
    from langgraph.store.postgres import PostgresStore

    from memory.stores.postgres import SETUP_LOCK, _one_at_a_time

    with psycopg.connect(pg_url, autocommit=True) as admin:
        admin.execute("CREATE DATABASE setup_race")
    url = pg_url.rsplit("/", 1)[0] + "/setup_race"

    def set_up_as_the_lock_holder() -> bool:
        with PostgresStore.from_conn_string(url) as store:
            store.setup()
        return True

    def open_as_the_other_worker() -> bool:
        with postgres_store(url):
            return True

    pool = ThreadPoolExecutor(2)
    with psycopg.connect(url, autocommit=True) as holder:
        try:
            holder.execute("SELECT pg_advisory_lock(%s)", (SETUP_LOCK,))  # the first worker
            with pytest.raises(TimeoutError, match="held the database's setup lock for over"):
                with _one_at_a_time(url, wait_s=0.5):
                    pass
            other = pool.submit(open_as_the_other_worker)
            time.sleep(1.0)  # the other worker is waiting for the lock now
            assert not other.done()
            assert pool.submit(set_up_as_the_lock_holder).result(timeout=60)
            holder.execute("SELECT pg_advisory_unlock(%s)", (SETUP_LOCK,))
            assert other.result(timeout=60)  # then it takes the lock, finds the tables, goes on
        finally:  # a stall ends in a failure, not a hung test run
            holder.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE datname = 'setup_race' AND pid <> pg_backend_pid()"
            )
            pool.shutdown(wait=True)
