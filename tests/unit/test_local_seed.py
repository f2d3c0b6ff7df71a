"""Per-request seeds: fixed by the request, new for each repeat, bounded memory."""

from __future__ import annotations

from core.local_seed import RequestSeeds, request_key, seeds_for

ASK = {"messages": [{"role": "user", "content": "Who made Gromit?"}], "max_tokens": 16}
OTHER = {**ASK, "max_tokens": 17}


def test_a_seed_follows_from_the_request_not_from_the_calls_before():
    one, two = RequestSeeds(), RequestSeeds()
    two.seed(7, OTHER)  # another request first
    assert one.seed(7, ASK) == two.seed(7, ASK) == request_key(7, ASK)
    assert request_key(7, ASK) not in (request_key(8, ASK), request_key(7, OTHER))


def test_each_repeat_of_a_request_gets_a_new_seed():
    seeds = RequestSeeds()
    assert len({seeds.seed(7, ASK) for _ in range(5)}) == 5


def test_only_the_latest_requests_are_remembered():
    seeds = RequestSeeds(remembered=2)
    first = seeds.seed(7, ASK)
    for n in range(3):  # pushes ASK out
        seeds.seed(7, {**ASK, "max_tokens": n})
    assert seeds.seed(7, ASK) == first  # forgotten: counted as new


def test_one_set_of_seeds_per_loaded_model():
    class Loaded:  # stands in for a llama.cpp model
        pass

    a, b = Loaded(), Loaded()
    assert seeds_for(a) is seeds_for(a) and seeds_for(a) is not seeds_for(b)
