"""Run evaluation jobs one after another, or in parallel on Ray (`--workers N`, `--ray-address`).

A job is a unit of work named by a `module:function` and a JSON-able payload; the function is
called as `fn(payload, resources)` and returns the job's results record. Jobs of one `chain`
(an online-learning stream, whose memory grows episode by episode) run in order on the same
worker; different chains run in parallel. Each worker keeps its own `WorkerResources` (an event
loop, a browser and page servers, opened on first use) and loads its own model, so workers
share nothing but the memory on disk (SQLite under each arm's data directory).

Local Ray is started on demand with one CPU per worker; `--ray-address ADDR` joins an existing
cluster instead, whose nodes must have this project installed and see the output directory
(a shared filesystem), since memory files live there.
"""

from __future__ import annotations

import importlib
import os
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evals.common.resources import WorkerResources

ROOT = Path(__file__).resolve().parents[2]  # the checkout, for Ray workers' PYTHONPATH


@dataclass(frozen=True)
class Job:
    key: str  # unique; becomes the results record's key
    fn: str  # "package.module:function", called as fn(payload, resources) -> dict
    payload: dict[str, Any] = field(default_factory=dict)
    chain: str = ""  # jobs sharing a chain run in order on one worker; "" = its own chain


def call_job(job: Job, resources: WorkerResources) -> dict[str, Any]:
    """Run one job here; the record it returns gets the job's key. The worker's embedded
    models first forget the tokens they kept: a job's result must not depend on the jobs before
    it (on the pooled HotpotQA test split, one question took 2 calls alone or after a reset, and
    18 after another question had filled the model's context)."""
    module, _, name = job.fn.partition(":")
    fn = getattr(importlib.import_module(module), name, None)
    if not callable(fn):
        raise ValueError(f"job function {job.fn!r} does not exist")
    resources.models.forget_kept_tokens()
    record = dict(fn(job.payload, resources))
    record["key"] = job.key
    return record


class _Worker:
    """One Ray actor: its own resources, kept across the jobs it runs."""

    def __init__(self) -> None:
        self.resources = WorkerResources()

    def run(self, job: Job) -> dict[str, Any]:
        return call_job(job, self.resources)

    def close(self) -> None:
        self.resources.close()


def _chains(jobs: Iterable[Job]) -> dict[str, deque[Job]]:
    chains: dict[str, deque[Job]] = {}
    for job in jobs:
        chains.setdefault(job.chain or job.key, deque()).append(job)
    return chains


def run_jobs(
    jobs: Iterable[Job],
    on_result: Callable[[dict[str, Any]], None],
    *,
    workers: int = 1,
    ray_address: str | None = None,
) -> None:
    """Run `jobs`, calling `on_result(record)` in this process as each one finishes."""
    if workers < 1:
        raise ValueError(f"--workers must be at least 1, got {workers}")
    jobs = list(jobs)
    if workers == 1 and not ray_address:
        resources = WorkerResources()
        try:
            for job in jobs:
                on_result(call_job(job, resources))
        finally:
            resources.close()
        return
    _run_on_ray(jobs, on_result, workers, ray_address)


def _init_ray(workers: int, address: str | None) -> Any:
    # No usage reporting: this machine (and many clusters) has no way out to the internet.
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    try:
        import ray
    except ImportError as exc:
        raise RuntimeError("--workers needs Ray: pip install 'reflective-agent[eval]'") from exc
    if address:
        ray.init(address=address, log_to_driver=False)
    else:
        ray.init(
            num_cpus=workers,
            include_dashboard=False,
            log_to_driver=False,
            object_store_memory=100 * 1024 * 1024,  # results are small JSON records
            runtime_env={"env_vars": {"PYTHONPATH": str(ROOT)}},
        )
    return ray


def _run_on_ray(
    jobs: list[Job], on_result: Callable[[dict[str, Any]], None], workers: int, address: str | None
) -> None:
    ray = _init_ray(workers, address)
    try:
        actors = [ray.remote(num_cpus=1)(_Worker).remote() for _ in range(workers)]
        try:
            _dispatch(ray, actors, _chains(jobs), on_result)
        finally:
            ray.get([a.close.remote() for a in actors])
    finally:
        ray.shutdown()


def _dispatch(
    ray: Any, actors: list[Any], chains: dict[str, deque[Job]], on_result: Callable[..., None]
) -> None:
    """Keep every actor busy; a chain sticks to the actor that ran its first job."""
    home: dict[str, int] = {}  # chain -> actor index
    idle = set(range(len(actors)))
    running: dict[Any, tuple[int, str]] = {}
    while chains or running:
        for chain in list(chains):
            busy = any(c == chain for _, c in running.values())
            actor = home.get(chain, min(idle) if idle else None)
            if busy or actor is None or actor not in idle:
                continue
            job = chains[chain].popleft()
            if not chains[chain]:
                del chains[chain]
            home[chain] = actor
            idle.discard(actor)
            running[actors[actor].run.remote(job)] = (actor, chain)
        done, _ = ray.wait(list(running), num_returns=1)
        for ref in done:
            actor, _chain = running.pop(ref)
            idle.add(actor)
            on_result(ray.get(ref))
