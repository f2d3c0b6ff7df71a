"""Per-request sampling seeds for the embedded model (core.local_model).

llama-cpp-python seeds each call from the previous call's seed, so what a call says depends on
every call made before it in the process (in a test suite, on which tests ran first; with nodes
running side by side, on which took the model first). Here a call's seed comes from a base and
the call's own request instead. The same request asked again (a retry after malformed output, a
second trial with nothing learned) must not get the same sample back, so the seed also counts
how many times that request was asked before:

    seeds = seeds_for(llama)          # one per loaded model
    params["seed"] = seeds.seed(7, params)
"""

from __future__ import annotations

import json
import threading
import zlib
from collections import OrderedDict
from typing import Any
from weakref import WeakKeyDictionary

REMEMBERED = 4096  # requests whose repeats are counted (the oldest are forgotten)
_MASK = 0x7FFFFFFF


def request_key(base: int, params: dict[str, Any]) -> int:
    """A number fixed by `base` and the request's messages and settings."""
    request = json.dumps(params, sort_keys=True, default=str).encode("utf-8")
    return zlib.crc32(request, base & 0xFFFFFFFF) & _MASK


class RequestSeeds:
    """The seed of each request: its key the first time, then one per repeat."""

    def __init__(self, remembered: int = REMEMBERED) -> None:
        self.remembered = remembered
        self._asked: OrderedDict[int, int] = OrderedDict()  # key → times asked
        self._lock = threading.Lock()

    def seed(self, base: int, params: dict[str, Any]) -> int:
        key = request_key(base, params)
        with self._lock:
            before = self._asked.pop(key, 0)
            self._asked[key] = before + 1
            if len(self._asked) > self.remembered:
                self._asked.popitem(last=False)
        return key if not before else zlib.crc32(before.to_bytes(8, "little"), key) & _MASK


_PER_MODEL: WeakKeyDictionary[Any, RequestSeeds] = WeakKeyDictionary()
_LOCK = threading.Lock()


def seeds_for(llama: Any) -> RequestSeeds:
    """The request seeds of one loaded model (shared by every LocalChatModel copy using it)."""
    with _LOCK:
        if llama not in _PER_MODEL:
            _PER_MODEL[llama] = RequestSeeds()
        return _PER_MODEL[llama]
