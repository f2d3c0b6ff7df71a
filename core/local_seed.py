"""Per-request sampling seeds for the embedded model (core.local_model).

llama-cpp-python seeds each call from the previous call's seed, so what a call says depends on
every call made before it in the process (in a test suite, on which tests ran first; with nodes
running side by side, on which took the model first). Here a call's seed comes from a base and
the call's own request instead, so the same request gets the same sample.

A caller that asks the same thing again on purpose (a retry after malformed output, the next
Reflexion trial) says which round it is in, and gets a new sample for each round:

    for attempt in range(2):
        with sample_round(attempt):   # round 0 samples as a plain call does
            out = model.invoke(prompt)

Rounds nest (a trial's retries) and follow the context into LangChain's and LangGraph's worker
threads, which copy it. They are explicit, not counted, so a result does not depend on what the
process asked before (question order, workers, a resumed run).
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

_ROUNDS: ContextVar[tuple[int, ...]] = ContextVar("sample_rounds", default=())


@contextmanager
def sample_round(n: int) -> Iterator[None]:
    """Calls inside sample round `n` of their requests (within any enclosing round)."""
    if n < 0:
        raise ValueError(f"a sample round is 0 or more, got {n}")
    token = _ROUNDS.set((*_ROUNDS.get(), n))
    try:
        yield
    finally:
        _ROUNDS.reset(token)


def request_seed(base: int, params: dict[str, Any]) -> int:
    """The seed of a request: fixed by `base`, its messages and settings, and the rounds it is
    asked in (all rounds 0: the request's own seed)."""
    rounds = _ROUNDS.get()
    # plain JSON only (no default=str): a repr with an address would differ between processes
    asked = [params, list(rounds)] if any(rounds) else params
    request = json.dumps(asked, sort_keys=True).encode("utf-8")
    return zlib.crc32(request, base & 0xFFFFFFFF) & 0x7FFFFFFF
