"""Job scheduling: sequential runs, chains in order and on one worker, the Ray dispatcher
driven through a fake Ray whose jobs finish in an adversarial order."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from core.models import Models
from evals.common import workers
from evals.common.workers import Job, WorkerResources, call_job, run_jobs

CALLS: list[tuple[str, int]] = []


def scripted(payload: dict[str, Any], resources: WorkerResources) -> dict[str, Any]:
    """A deterministic job: its outcome depends only on its payload."""
    CALLS.append((payload["chain"], payload["i"]))
    return {
        "chain": payload["chain"],
        "i": payload["i"],
        "success": payload["i"] % 2 == 0,
        "worker": id(resources),
    }


def _jobs() -> list[Job]:
    fn = f"{__name__}:scripted"
    return [
        Job(f"{c}#{i}", fn, {"chain": c, "i": i}, chain=c)
        for c in ("a", "b", "c")
        for i in range(3)
    ]


def test_sequential_run_calls_every_job_in_order_with_one_resources() -> None:
    CALLS.clear()
    seen: list[dict[str, Any]] = []
    run_jobs(_jobs(), seen.append)
    assert [r["key"] for r in seen] == [j.key for j in _jobs()]
    assert len({r["worker"] for r in seen}) == 1
    with pytest.raises(ValueError, match="at least 1"):
        run_jobs([], seen.append, workers=0)


def test_unknown_job_function_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="does not exist"):
        call_job(Job("k", f"{__name__}:nope"), WorkerResources.__new__(WorkerResources))


class FakeRef:
    def __init__(self, value: dict[str, Any], order: int) -> None:
        self.value, self.order = value, order


class FakeActor:
    def __init__(self, index: int, log: list[tuple[int, str]]) -> None:
        self.index, self.log = index, log
        self.resources = SimpleNamespace(models=Models())  # its own, as a Ray worker has
        self.run = self._method(self._run)
        self.close = self._method(lambda: None)

    def _method(self, fn: Any) -> Any:
        actor = self

        class Remote:
            @staticmethod
            def remote(*args: Any) -> FakeRef:
                actor.log.append((actor.index, args[0].key if args else "close"))
                return FakeRef(fn(*args), len(actor.log))

        return Remote()

    def _run(self, job: Job) -> dict[str, Any]:
        return call_job(job, self.resources)  # type: ignore[arg-type]


class FakeRay:
    """Finishes the most recently started job first, to shake out ordering bugs."""

    def wait(self, refs: list[FakeRef], num_returns: int) -> tuple[list[FakeRef], list[FakeRef]]:
        latest = max(refs, key=lambda r: r.order)
        return [latest], [r for r in refs if r is not latest]

    def get(self, ref: Any) -> Any:
        return [r.value for r in ref] if isinstance(ref, list) else ref.value


def test_dispatch_keeps_chains_in_order_and_on_one_actor() -> None:
    log: list[tuple[int, str]] = []
    actors = [FakeActor(i, log) for i in range(2)]
    seen: list[dict[str, Any]] = []
    workers._dispatch(FakeRay(), actors, workers._chains(_jobs()), seen.append)
    assert sorted(r["key"] for r in seen) == sorted(j.key for j in _jobs())
    for chain in "abc":
        mine = [r["i"] for r in seen if r["chain"] == chain]
        assert mine == [0, 1, 2], (chain, mine)
        assert len({a for a, key in log if key.startswith(chain)}) == 1
    assert {a for a, _ in log} == {0, 1}  # both workers were used


def test_results_equal_sequential_whatever_the_finishing_order() -> None:
    sequential: list[dict[str, Any]] = []
    run_jobs(_jobs(), sequential.append)
    parallel: list[dict[str, Any]] = []
    workers._dispatch(
        FakeRay(), [FakeActor(i, []) for i in range(3)], workers._chains(_jobs()), parallel.append
    )

    def outcome(r: dict[str, Any]) -> tuple[str, bool]:
        return r["key"], r["success"]

    assert sorted(map(outcome, parallel)) == sorted(map(outcome, sequential))


class Forgetful:
    """A chat model that counts how often it was told to forget its kept tokens."""

    def __init__(self) -> None:
        self.forgotten = 0

    def forget_kept_tokens(self) -> None:
        self.forgotten += 1


def chatty(payload: dict[str, Any], resources: WorkerResources) -> dict[str, Any]:
    return {"forgotten_before": resources.models.chat("local").forgotten}


def test_every_job_starts_with_models_that_forgot_the_jobs_before() -> None:
    model, resources = Forgetful(), WorkerResources()
    resources.models = Models(chat=lambda spec: model)  # type: ignore[arg-type,return-value]
    try:
        records = [call_job(Job(f"k{i}", f"{__name__}:chatty"), resources) for i in range(3)]
    finally:
        resources.close()
    assert [r["forgotten_before"] for r in records] == [0, 1, 2]  # none built before the first
