"""Token budget packer: never over budget, uses the space well, serves any item type."""

from __future__ import annotations

import math
import random

import pytest

from memory.packing import (
    MemoryGroup,
    approximate_tokens,
    context_window,
    pack,
    token_counter,
)


def words(text: str) -> int:
    return len(text.split())


def sticky(text: str) -> int:
    """Not additive: long texts cost extra, as BPE joins sometimes do."""
    return math.ceil(len(text) / 4) + (7 if len(text) > 300 else 0)


def _text(rng: random.Random, n_words: int) -> str:
    return " ".join(rng.choice(["alpha", "beta", "gamma", "delta"]) for _ in range(n_words))


@pytest.mark.parametrize("count", [words, approximate_tokens, sticky])
def test_never_exceeds_budget(count) -> None:
    rng = random.Random(0)
    for _ in range(300):
        system, query = _text(rng, rng.randint(0, 80)), _text(rng, rng.randint(0, 80))
        groups = [
            MemoryGroup(
                "workflows",
                [_text(rng, rng.randint(1, 120)) for _ in range(rng.randint(0, 12))],
                str,
            ),
            MemoryGroup(
                "exemplars",
                [_text(rng, rng.randint(1, 200)) for _ in range(rng.randint(0, 12))],
                str,
            ),
        ]
        window, reserve = rng.randint(50, 2000), rng.randint(0, 200)
        r = pack(
            groups,
            system=system,
            query=query,
            context_window=window,
            response_reserve=reserve,
            count=count,
        )
        real = count(system) + count(query) + 16 + (count(r.text) if r.text else 0)
        if r.fits:
            assert real <= window - reserve
            assert r.tokens == real
        else:
            assert r.text == "" and not any(r.used.values())


@pytest.mark.parametrize("count", [words, approximate_tokens])
def test_uses_at_least_90_percent_when_enough_candidates(count) -> None:
    rng = random.Random(1)
    for _ in range(200):
        window = rng.randint(800, 6000)
        system, query = _text(rng, rng.randint(10, 100)), _text(rng, rng.randint(10, 100))
        available = window - 100 - count(system) - count(query) - 16
        cap = max(2, available // 10)  # no single candidate larger than a tenth of the space
        items: list[str] = []
        total = 0
        while total < 2 * available:
            items.append(_text(rng, rng.randint(max(1, cap // 8), max(1, cap // 2))))
            total += count(items[-1])
        assert max(count(i) for i in items) <= cap
        r = pack(
            [MemoryGroup("exemplars", items, str)],
            system=system,
            query=query,
            context_window=window,
            response_reserve=100,
            count=count,
        )
        assert r.memory_tokens >= 0.9 * r.available, (r.memory_tokens, r.available)


def test_workflows_first_then_exemplars_and_counts() -> None:
    wf = MemoryGroup("workflows", [{"n": "w1"}, {"n": "w2"}], lambda d: f"## {d['n']} " + "x " * 10)
    ex = MemoryGroup("exemplars", ["e " * 10] * 5, str)
    r = pack(
        [wf, ex],
        system="sys",
        query="q",
        context_window=16 + 2 + 11 * 2 + 10 * 2 + 5,
        response_reserve=0,
        count=words,
    )
    assert [d["n"] for d in r.used["workflows"]] == ["w1", "w2"]
    assert len(r.used["exemplars"]) == 2
    assert r.counts() == {"workflows": "2/2", "exemplars": "2/5"}
    assert r.text.startswith("## w1")


def test_over_budget_fixed_part_is_reported() -> None:
    r = pack(
        [MemoryGroup("x", ["a"], str)],
        system="a " * 100,
        query="b",
        context_window=50,
        response_reserve=10,
        count=words,
    )
    assert not r.fits and r.used == {"x": []}


class _Local:
    context_window = 4096

    def get_num_tokens(self, text: str) -> int:
        return 42


def test_counter_and_window_selection() -> None:
    assert token_counter(_Local())("anything") == 42
    assert context_window(_Local()) == 4096
    assert context_window(spec="openai:gpt-4o-mini") == 128_000
    assert context_window(spec="openai:gpt-4") == 8_192
    assert context_window(spec="ollama:mystery") == 8_192
    counter = token_counter(spec="openai:gpt-4o")
    assert counter("hello world") in (2, math.ceil(len("hello world") / 3))
    assert token_counter(spec="acme:unknown") is approximate_tokens
