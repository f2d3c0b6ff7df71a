"""Per-request seeds: fixed by the request and the rounds it is asked in, nothing else."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
from langchain_core.runnables import RunnableLambda

from core.local_seed import request_seed, sample_round

ASK = {"messages": [{"role": "user", "content": "Who made Gromit?"}], "max_tokens": 16}


def test_a_seed_follows_from_the_request_alone():
    seeds = {request_seed(7, ASK) for _ in range(3)}
    assert len(seeds) == 1
    assert request_seed(7, ASK) not in (request_seed(8, ASK), request_seed(7, {**ASK, "n": 1}))
    with sample_round(0):  # round 0 is the plain call
        assert request_seed(7, ASK) in seeds


def test_each_round_and_nesting_gets_its_own_seed():
    seen = set()
    for outer in range(3):
        with sample_round(outer):
            for inner in range(3):
                with sample_round(inner):
                    seen.add(request_seed(7, ASK))
    assert len(seen) == 9
    with pytest.raises(ValueError, match="0 or more"):
        with sample_round(-1):
            pass


def test_a_round_reaches_langchains_worker_threads():
    seed = RunnableLambda(lambda _: request_seed(7, ASK))
    with sample_round(2), ThreadPoolExecutor(1) as pool:
        expected = request_seed(7, ASK)
        assert seed.batch([1, 2], {"max_concurrency": 2}) == [expected] * 2
        # a plain thread does not copy the context: the round would be lost there
        assert pool.submit(request_seed, 7, ASK).result() != expected


def test_a_round_reaches_the_seed_on_every_call_path():
    """invoke, stream, ainvoke and astream (which generates in a thread of its own)."""
    import asyncio

    from tests.unit.fake_llama import FakeLlama, fake_local_model

    llama = FakeLlama(["Hi."])
    model = fake_local_model(llama)

    async def both_async() -> None:
        await model.ainvoke("Who made Gromit?")
        async for _ in model.astream("Who made Gromit?"):
            pass

    for n in (0, 1):
        with sample_round(n):
            model.invoke("Who made Gromit?")
            list(model.stream("Who made Gromit?"))
            asyncio.run(both_async())
    first, second = [r["seed"] for r in llama.requests[:4]], [r["seed"] for r in llama.requests[4:]]
    assert len(set(first)) == len(set(second)) == 1 and first[0] != second[0]
