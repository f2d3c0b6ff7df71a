"""Per-call output limits: how many tokens each role's model call may write, and how to apply one.

One `max_tokens` for every call made verdicts and tool choices as expensive as answers: on the
embedded model, three capped calls produced two thirds of a run's output tokens. Each call now
asks for what it must say:

    from core.output_limits import OUTPUT_LIMITS, with_max_tokens
    from core.structured import ask_structured

    verdict = ask_structured(model, ReflectionOutput, prompt, max_tokens=OUTPUT_LIMITS["reflect"])
    answer = with_max_tokens(model, OUTPUT_LIMITS["aggregate"]).invoke(prompt).text

`with_max_tokens` returns a copy of the same chat model class (so `with_structured_output`,
`bind_tools`, `get_num_tokens` and `context_window` still work) and leaves the cached model
untouched. Structured output cut at its limit is closed and validated, not thrown away (see
core/local_schema.py), so put the fields a caller cannot do without first in its schema.
"""

from __future__ import annotations

import logging
from typing import Any, TypeVar

log = logging.getLogger(__name__)
M = TypeVar("M")

# Tokens of output per role, sized on SmolLM2's tokenizer from what each call must say.
# A JSON verdict or tool choice ends well inside its limit; the limit only bites when a small
# model runs on, which is exactly the waste it removes.
OUTPUT_LIMITS: dict[str, int] = {
    "goal": 96,  # the answer form, a goal sentence, up to 3 short criteria
    "decompose": 192,  # 3-5 one-sentence tasks
    "executor": 160,  # a tool choice (~30 tokens) or a short final answer
    "grounded_answer": 160,  # an answer from retrieved evidence
    "reflect": 176,  # verdict, confidence, 1-2 sentences, a strategy, short reasons
    "aggregate": 256,  # the answer, 1-3 sentences of support, its sources
    "short_answer": 32,  # a few words (HotpotQA-style)
    "hop": 96,  # a few short sentences of reasoning, the last one the answer
    "judge": 96,  # an evaluator's verdict and one-sentence reason
    "web_action": 64,  # one browser action
    "salient_questions": 96,  # up to 3 questions
    "insights": 192,  # up to 5 one-sentence insights
    "induce_workflows": 512,  # several workflow blocks
}

# Chat model classes name their output limit differently; the first field a class has is used.
_LIMIT_FIELDS = ("max_tokens", "max_output_tokens", "num_predict", "max_new_tokens")


def with_max_tokens(model: M, max_tokens: int | None) -> M:
    """A copy of `model` that writes at most `max_tokens` tokens per call (None: unchanged).

    Works for any pydantic chat model with an output-limit field (the embedded model,
    ChatOpenAI and the OpenAI-compatible server adapter, Anthropic, Google, Ollama); other
    objects (scripted test models) are returned as they are.
    """
    if max_tokens is None:
        return model
    if max_tokens <= 0:
        raise ValueError(f"max_tokens must be positive, got {max_tokens}")
    fields: dict[str, Any] = getattr(type(model), "model_fields", {})
    name = next((f for f in _LIMIT_FIELDS if f in fields), None)
    if name is None or not hasattr(model, "model_copy"):
        log.debug("%s has no output-limit field; limit %d not applied", type(model), max_tokens)
        return model
    # model_copy shares the loaded weights / HTTP clients; only the limit differs
    return model.model_copy(update={name: max_tokens})
