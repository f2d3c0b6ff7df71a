"""Grammar-constrained sampling that checks the sampled token first (llama.cpp's own approach).

llama-cpp-python puts the grammar in its sampler chain before top-k, so every token tests the
grammar against the whole 49k-token vocabulary (~7.5 ms a token against ~0.3 ms unconstrained).
llama.cpp's common/sampling.cpp instead samples without the grammar and asks the grammar about
that one token; only when it is rejected are the candidates filtered and the token resampled.
This module does the same, with one exact shortcut between: a rejected token is resampled from
the grammar-valid tokens among the `shortlist` highest (penalised) logits when enough of them
are valid that the full filter could not choose differently (one for greedy decoding, top-k for
top-k sampling: penalties only lower logits, so every token outside the shortlist ranks below
every token in it); otherwise from the whole vocabulary, which never crashes.

The chain keeps llama-cpp-python's order (penalties, grammar, top-k … dist), so greedy output is
identical to the stock sampler (the integration test and `python -m bench.grammar_sampling`
check it).
"""

from __future__ import annotations

import ctypes
import math
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import llama_cpp
import numpy as np
from llama_cpp import Llama
from llama_cpp import _internals as internals
from llama_cpp.llama_grammar import LlamaGrammar

TOKEN_DTYPE = np.dtype([("id", np.int32), ("logit", np.float32), ("p", np.float32)], align=True)
SHORTLIST = 256


@dataclass
class SamplingStats:
    """How each token was found: first try, from the shortlist, or from the whole vocabulary."""

    first: int = 0
    shortlist: int = 0
    full: int = 0


@dataclass
class SamplerParts:
    """llama-cpp-python's chain taken apart: penalties, grammar, and the rest (top-k … dist)."""

    penalties: Any
    grammar: Any
    rest: Any
    need: int | None  # valid shortlist tokens that make the shortlist exact; None: never


def _apply(sampler: Any, buf: np.ndarray, size: int) -> llama_cpp.llama_token_data_array:
    cur = llama_cpp.llama_token_data_array(
        data=buf.ctypes.data_as(llama_cpp.llama_token_data_p), size=size, selected=-1, sorted=False
    )
    llama_cpp.llama_sampler_apply(sampler.sampler, ctypes.byref(cur))
    return cur


class GrammarCheckedSampler:
    """A drop-in for llama-cpp-python's sampler chain (`.sample(ctx, idx)`) with a grammar."""

    def __init__(self, parts: SamplerParts, n_vocab: int, shortlist: int = SHORTLIST) -> None:
        self.parts = parts
        self.n_vocab = n_vocab
        self.shortlist = min(shortlist, n_vocab)
        self.stats = SamplingStats()
        self._ids = np.arange(n_vocab, dtype=np.int32)
        self._all = np.zeros(n_vocab, dtype=TOKEN_DTYPE)
        self._few = np.zeros(self.shortlist, dtype=TOKEN_DTYPE)

    def _fill(self, ids: np.ndarray, logits: np.ndarray, buf: np.ndarray) -> np.ndarray:
        # samplers sort and truncate the array in place, so ids are reset with the logits
        buf["id"], buf["logit"], buf["p"] = ids, logits, 0.0
        return buf

    def _valid(self, token: int) -> bool:
        one = np.array([(token, 1.0, 0.0)], dtype=TOKEN_DTYPE)
        _apply(self.parts.grammar, one, 1)
        return not math.isinf(float(one["logit"][0]))

    def _rest(self, buf: np.ndarray, size: int) -> int:
        cur = _apply(self.parts.rest, buf, size)
        return int(cur.data[cur.selected].id)

    def sample(self, ctx: Any, idx: int = -1) -> int:
        raw = np.ctypeslib.as_array(
            llama_cpp.llama_get_logits_ith(ctx.ctx, idx), shape=(self.n_vocab,)
        )
        buf = self._fill(self._ids, raw, self._all)
        _apply(self.parts.penalties, buf, self.n_vocab)  # in place, order kept
        penalised = buf["logit"].copy()
        token = self._rest(buf, self.n_vocab)
        if self._valid(token):
            self.stats.first += 1
        else:
            token = self._resample(penalised)
        for sampler in (self.parts.grammar, self.parts.penalties, self.parts.rest):
            llama_cpp.llama_sampler_accept(sampler.sampler, token)
        return token

    def _resample(self, penalised: np.ndarray) -> int:
        need = self.parts.need
        if need is not None and need <= self.shortlist:
            top = np.argpartition(penalised, -self.shortlist)[-self.shortlist :]
            few = self._fill(top.astype(np.int32), penalised[top], self._few)
            _apply(self.parts.grammar, few, self.shortlist)
            if int(np.count_nonzero(~np.isneginf(few["logit"]))) >= need:
                self.stats.shortlist += 1
                return self._rest(few, self.shortlist)
        self.stats.full += 1
        buf = self._fill(self._ids, penalised, self._all)
        _apply(self.parts.grammar, buf, self.n_vocab)
        if np.isneginf(buf["logit"]).all():
            raise RuntimeError("the grammar allows no token here; the JSON schema cannot be met")
        return self._rest(buf, self.n_vocab)


class CheckedGrammarLlama(Llama):
    """llama_cpp.Llama whose grammar sampling checks the sampled token first; records usage.

    Everything else (chat templates, prefix caching, stop handling, streaming) is
    llama-cpp-python's own, so outputs are formatted exactly as before.
    """

    grammar_first_check: bool = True
    last_sampler: GrammarCheckedSampler | None = None
    last_usage: tuple[int, int] = (0, 0)  # (prompt tokens, generated tokens) of the last call
    last_cached: int = 0  # prompt tokens of the last call already in the context (not read)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.call_lock = threading.Lock()  # held by each caller for a whole generation

    def _init_sampler(self, *args: Any, **kwargs: Any) -> Any:
        grammar: LlamaGrammar | None = kwargs.get("grammar")
        plain = args or kwargs.get("logits_processor") or kwargs.get("mirostat_mode")
        if grammar is None or not self.grammar_first_check or plain:
            return super()._init_sampler(*args, **kwargs)
        self.last_sampler = GrammarCheckedSampler(self._parts(grammar, kwargs), self._n_vocab)
        return self.last_sampler

    def _parts(self, grammar: LlamaGrammar, kwargs: dict[str, Any]) -> SamplerParts:
        penalties = internals.LlamaSampler()
        penalties.add_penalties(  # exactly as llama-cpp-python's own chain adds them
            n_vocab=self._n_vocab,
            penalty_last_n=self.last_n_tokens_size,
            penalty_repeat=kwargs.get("repeat_penalty", 1.0),
            penalty_freq=kwargs.get("frequency_penalty", 0.0),
            penalty_present=kwargs.get("presence_penalty", 0.0),
        )
        only_grammar = internals.LlamaSampler()
        only_grammar.add_grammar(self._model, grammar)
        neutral = {"repeat_penalty": 1.0, "frequency_penalty": 0.0, "presence_penalty": 0.0}
        rest = super()._init_sampler(**{**kwargs, **neutral, "grammar": None})
        temp, top_k = kwargs.get("temp", 0.8), kwargs.get("top_k", 40)
        need = 1 if temp == 0 else (top_k if temp > 0 and top_k > 0 else None)
        return SamplerParts(penalties, only_grammar, rest, need)

    def generate(self, tokens: Sequence[int], *args: Any, **kwargs: Any) -> Iterator[int]:  # type: ignore[override]
        # Streamed completions report no usage; counting here gives exact numbers for both modes.
        prompt = len(tokens)
        self.last_usage, self.last_cached = (prompt, 0), self._kept_prefix(tokens)
        for n, token in enumerate(super().generate(tokens, *args, **kwargs), start=1):
            self.last_usage = (prompt, n)
            yield token

    def _kept_prefix(self, tokens: Sequence[int]) -> int:
        """How many of `tokens` the context already holds from the last call: the prefix
        llama-cpp-python's generate keeps instead of reading again (it compares the same
        way, leaving the last prompt token to be read)."""
        kept = 0
        # `input_ids` is the whole buffer; `_input_ids` the tokens the context holds now
        for held, new in zip(self._input_ids.tolist(), list(tokens)[:-1], strict=False):
            if held != new:
                break
            kept += 1
        return kept
