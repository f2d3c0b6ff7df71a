"""JSON schemas that keep the embedded model's output well-formed and bounded.

llama.cpp turns a JSON schema into a grammar. Lists are bounded (maxItems) so a small model
cannot repeat items until the token limit. String lengths are mostly NOT put in the grammar: a
maxLength becomes as many nested optional rules, so the token limit and the repeat penalty bound
strings instead, and pydantic validates what comes back. Tool arguments are the exception: a
tool call's strings are bounded (`QUERY_CHARS` for a query, `TOOL_ARG_CHARS` for others),
because a small model's search query ran on as noise to the call's whole token budget (160
tokens and ~5 s a call, seen on four of five calls in a run), and a query never needs more.
With the checked sampler (core/llama_sampling.py) such a bound costs little: the grammar judges
one token at a time.
"""

from __future__ import annotations

import copy
import json
import logging
from typing import Any

from langchain_core.exceptions import OutputParserException
from langchain_core.runnables import Runnable, RunnableLambda
from langchain_core.utils.json import parse_partial_json
from pydantic import BaseModel, ValidationError

log = logging.getLogger(__name__)
MAX_ITEMS = 6
TOOL_ARG_CHARS = 200  # a URL or a field's text; a tool's own maxLength wins
QUERY_CHARS = 100  # a search query (about 15 words)


def _inline_refs(node: Any, defs: dict[str, Any]) -> Any:
    if isinstance(node, dict):
        if "$ref" in node:
            name = node["$ref"].rsplit("/", 1)[-1]
            return _inline_refs(copy.deepcopy(defs[name]), defs)
        return {k: _inline_refs(v, defs) for k, v in node.items() if k != "$defs"}
    if isinstance(node, list):
        return [_inline_refs(v, defs) for v in node]
    return node


def _bound(node: Any, keep_lengths: bool = False) -> Any:
    if isinstance(node, dict):
        drop: tuple[str, ...] = ("title", "default", "minLength")
        if not keep_lengths:
            drop += ("maxLength",)
        node = {k: _bound(v, keep_lengths) for k, v in node.items() if k not in drop}
        if node.get("type") == "array":
            node.setdefault("maxItems", MAX_ITEMS)
        if node.get("type") == "object" and "properties" in node:
            node["required"] = list(node["properties"])  # defaults too: the grammar asks all
        return node
    if isinstance(node, list):
        return [_bound(v, keep_lengths) for v in node]
    return node


def bounded_schema(schema: dict[str, Any], keep_lengths: bool = False) -> dict[str, Any]:
    """Inline $refs, bound every array, drop string lengths (unless `keep_lengths`: tool
    choices); all properties become required."""
    return _bound(_inline_refs(schema, schema.get("$defs", {})), keep_lengths)


def _bounded_strings(node: Any, name: str = "") -> Any:
    """A tool's argument schema with every string given a maxLength (its own, if it has one),
    wherever it sits (properties, items, anyOf/oneOf, nested objects); `name` is the property
    the string belongs to (a `query` is shorter than other text)."""
    if isinstance(node, list):
        return [_bounded_strings(v, name) for v in node]
    if not isinstance(node, dict):
        return node
    out = {}
    for key, value in node.items():
        if key == "properties" and isinstance(value, dict):
            out[key] = {k: _bounded_strings(v, k) for k, v in value.items()}
        elif key in ("items", "anyOf", "oneOf", "allOf", "additionalProperties", "$defs"):
            out[key] = _bounded_strings(value, name)
        else:
            out[key] = value
    types = node.get("type")
    is_string = types == "string" or (isinstance(types, list) and "string" in types)
    if is_string and "enum" not in node and "const" not in node:
        out["maxLength"] = node.get("maxLength", _limit(name))
    return out


def _limit(name: str) -> int:
    return QUERY_CHARS if name == "query" else TOOL_ARG_CHARS


def tool_choice_schema(tools: list[dict[str, Any]], *, force: bool = False) -> dict[str, Any]:
    """One of: {"tool": NAME, "args": {...}} per tool, or {"final_answer": TEXT}."""
    options: list[dict[str, Any]] = [
        {
            "type": "object",
            "properties": {
                "tool": {"const": t["function"]["name"]},
                "args": _bounded_strings(
                    t["function"].get("parameters") or {"type": "object", "properties": {}}
                ),
            },
            "required": ["tool", "args"],
        }
        for t in tools
    ]
    if not force:
        options.append(
            {
                "type": "object",
                "properties": {"final_answer": {"type": "string"}},
                "required": ["final_answer"],
            }
        )
    return {"oneOf": options}


def schema_of(schema: Any) -> dict[str, Any]:
    """The JSON schema of a pydantic model (or a JSON schema as it is)."""
    if isinstance(schema, type) and issubclass(schema, BaseModel):
        return schema.model_json_schema()
    if isinstance(schema, dict):
        return schema
    raise TypeError(f"structured output needs a pydantic model or JSON schema, got {schema!r}")


def parse_json_prefix(text: str) -> Any:
    """JSON text, or a JSON prefix cut at the token budget closed into a value; None otherwise.

    Grammar-constrained output is always a valid prefix, so a cut string or list is closed and
    an unfinished scalar (`"confidence": 0.`) dropped; the schema's validation then decides
    whether what is left is enough.
    """
    try:
        return json.loads(text, strict=False)  # small models put raw newlines in strings
    except json.JSONDecodeError:
        pass
    text = text.strip()
    if not text.startswith(("{", "[")):
        return None
    try:
        data = parse_partial_json(text)
    except json.JSONDecodeError:  # nothing of it closes into JSON
        return None
    if data is not None:
        log.info("structured output was cut at its token budget; closed and validated")
    return data


def output_parser(schema: Any) -> Any:
    """`message -> value`: JSON (a cut prefix closed) validated against `schema`."""

    def parse(message: Any) -> Any:
        text = message.text if hasattr(message, "text") else str(message)
        data = parse_json_prefix(text)
        if data is None:
            raise OutputParserException(f"model output is not JSON: {text[:200]!r}")
        return validate_output(schema, data)

    return parse


def validate_output(schema: Any, data: Any) -> Any:
    """`data` as an instance of a pydantic `schema` (OutputParserException if it does not fit);
    for a JSON-schema dict, the data itself."""
    if isinstance(schema, type) and issubclass(schema, BaseModel):
        try:
            return schema.model_validate(data)
        except ValidationError as exc:
            raise OutputParserException(
                f"model output does not fit {schema.__name__}: {exc}"
            ) from exc
    return data


def structured_runnable(model: Any, schema: Any, *, include_raw: bool = False) -> Runnable:
    """model | parse, with the schema's grammar bound; like BaseChatModel.with_structured_output."""
    bound = model.bind(json_schema=schema_of(schema))
    parse = RunnableLambda(output_parser(schema))
    if not include_raw:
        return bound | parse

    def safe_parse(raw: Any) -> dict[str, Any]:
        try:
            return {"raw": raw, "parsed": parse.invoke(raw), "parsing_error": None}
        except OutputParserException as exc:
            return {"raw": raw, "parsed": None, "parsing_error": exc}

    return bound | RunnableLambda(safe_parse)
