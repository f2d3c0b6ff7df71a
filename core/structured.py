"""Structured output with bounded retries: validate what a model says, or fall back."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, Literal, TypeVar

from langchain_core.exceptions import OutputParserException
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage
from langgraph.constants import TAG_NOSTREAM
from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from core.local_seed import sample_round
from core.output_limits import with_max_tokens

log = logging.getLogger(__name__)
T = TypeVar("T", bound=BaseModel)


def ask_structured(
    model: BaseChatModel,
    schema: type[T],
    prompt: str | list[BaseMessage],
    *,
    attempts: int = 2,
    max_tokens: int | None = None,
) -> T | None:
    """Ask for `schema`; retry on malformed output; None when every attempt failed.

    Callers always have a fallback, so a small model's odd output never crashes a run and
    never loops: at most `attempts` calls are made. `max_tokens` caps each call's output
    (see core.output_limits.OUTPUT_LIMITS), e.g. `max_tokens=OUTPUT_LIMITS["reflect"]`.
    The call is tagged `nostream`: a chat page streaming the graph's messages shows no JSON.
    """
    runnable = with_max_tokens(model, max_tokens).with_structured_output(schema)
    for attempt in range(1, attempts + 1):
        try:
            with sample_round(attempt - 1):  # a retry gets a new sample (core.local_seed)
                out = runnable.invoke(prompt, config={"tags": [TAG_NOSTREAM]})
        except (OutputParserException, ValidationError, ValueError) as exc:
            log.warning(
                "%s: malformed output (attempt %d/%d): %s", schema.__name__, attempt, attempts, exc
            )
            continue
        if isinstance(out, schema):
            return out
        try:
            return schema.model_validate(out)
        except ValidationError as exc:
            log.warning(
                "%s: invalid output (attempt %d/%d): %s", schema.__name__, attempt, attempts, exc
            )
    return None


def told(texts: Mapping[str, str]) -> ConfigDict:
    """A schema's own description as a model reads it (`texts["description"]`, from prompts/),
    in place of its class's docstring, which is written for readers of the code."""
    return ConfigDict(json_schema_extra={"description": texts["description"]})


def choice_schema(
    options: list[str], description: str = "One of the given answers."
) -> type[BaseModel]:
    """{"answer": one of `options`}: under a grammar the model can say nothing else.

    Each option must be plain one-line text: llama.cpp's grammar from a JSON schema keeps a
    line break, a double quote or a backslash inside an enum value unescaped and then fails
    to parse the grammar (a langgraph dev server running the test model died of it);
    `choice_text` makes any text fit.
    """
    if any(choice_text(o, limit=len(o)) != o for o in options):
        raise ValueError(
            "choice options must be plain one-line text: pass them through choice_text()"
        )
    one_of: Any = Literal[tuple(options)]
    return create_model("AnswerChoice", answer=(one_of, Field(description=description)))


def choice_text(text: str, limit: int = 200) -> str:
    """`text` as a choice grammar can hold it: one line (every run of whitespace one space),
    double quotes as single ones, no backslash, at most `limit` characters."""
    plain = " ".join(text.replace('"', "'").replace("\\", "/").split())
    return plain[:limit].strip()
