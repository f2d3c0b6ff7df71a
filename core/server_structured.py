"""Structured output from an OpenAI-compatible server, by whichever method the server supports.

`json_schema` (OpenAI's structured outputs) is tried first, then `function_calling` (one named
tool whose arguments are the schema), then `json_mode` (`response_format: json_object`, the
schema stated in a system turn). A method the server rejects (HTTP 400/404/415/422/500/501 —
llama-cpp-python's server answers 500 to `json_schema`) is never asked again; one it accepts
but ignores (no tool call, no JSON) is skipped for this call. The first method that works is
remembered for the server, so later calls make one request; a forced method is used alone.
Every method parses the same way: JSON (an answer cut at its token budget closed), then
validated against the schema.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

import openai
from langchain_core.exceptions import OutputParserException
from langchain_core.messages import AIMessage, SystemMessage, convert_to_messages
from langchain_core.prompt_values import PromptValue
from langchain_core.runnables import Runnable, RunnableConfig, RunnableLambda
from langchain_core.utils.function_calling import convert_to_openai_tool

from core.local_schema import output_parser, parse_json_prefix, schema_of, validate_output

log = logging.getLogger(__name__)
METHODS = ("json_schema", "function_calling", "json_mode")
REJECTED_STATUS = {400, 404, 415, 422, 500, 501}


def _rejected(exc: BaseException) -> bool:
    if not isinstance(exc, openai.APIStatusError):
        return False
    text = str(exc).lower()
    return exc.status_code in REJECTED_STATUS and not ("context" in text and "length" in text)


def _messages(value: Any) -> list:
    if isinstance(value, PromptValue):
        return value.to_messages()
    return convert_to_messages([("human", value)] if isinstance(value, str) else value)


def _with_raw(bound: Runnable, parse: Callable[[Any], Any], include_raw: bool) -> Runnable:
    if not include_raw:
        return bound | RunnableLambda(parse)

    def safe(raw: Any) -> dict[str, Any]:
        try:
            return {"raw": raw, "parsed": parse(raw), "parsing_error": None}
        except OutputParserException as exc:
            return {"raw": raw, "parsed": None, "parsing_error": exc}

    return bound | RunnableLambda(safe)


def method_runnable(model: Any, schema: Any, method: str, *, include_raw: bool) -> Runnable:
    """`model` asked for `schema` by one method, parsed and validated the same way."""
    tool = convert_to_openai_tool(schema)
    name = tool["function"]["name"]
    if method == "json_schema":
        fmt = {"name": name, "schema": schema_of(schema), "strict": False}
        bound = model.bind(response_format={"type": "json_schema", "json_schema": fmt})
        return _with_raw(bound, output_parser(schema), include_raw)
    if method == "function_calling":
        bound = model.bind(
            tools=[tool], tool_choice={"type": "function", "function": {"name": name}}
        )
        return _with_raw(bound, _tool_args_parser(schema), include_raw)
    instructions = SystemMessage(
        "Reply with one JSON object, and nothing else, that matches this JSON schema:\n"
        + json.dumps(schema_of(schema))
    )
    prompt: Runnable = RunnableLambda(lambda value: [instructions, *_messages(value)])
    bound = prompt | model.bind(response_format={"type": "json_object"})
    return _with_raw(bound, output_parser(schema), include_raw)


def _tool_args_parser(schema: Any) -> Callable[[AIMessage], Any]:
    def parse(message: AIMessage) -> Any:
        if message.tool_calls:
            return validate_output(schema, message.tool_calls[0]["args"])
        if message.invalid_tool_calls:  # arguments cut at the token budget: close them
            data = parse_json_prefix(message.invalid_tool_calls[0].get("args") or "")
            if isinstance(data, dict):
                return validate_output(schema, data)
        raise OutputParserException(f"the server made no tool call: {message.text[:200]!r}")

    return parse


class AdaptiveStructured:
    """Chooses, per server, the structured-output method that works (see module docstring)."""

    def __init__(self, build: Callable[[str], Runnable], state: Any, *, forced: str | None) -> None:
        self.build, self.state, self.forced = build, state, forced

    def _methods(self) -> list[str]:
        if self.forced:
            return [self.forced]
        if self.state.structured_method:
            return [self.state.structured_method]
        return [m for m in METHODS if m not in self.state.rejected_methods] or list(METHODS)

    def _failed(self, method: str, methods: list[str], exc: Exception) -> None:
        """Re-raise unless another method may work; remember a method the server rejects."""
        usable = _rejected(exc) or isinstance(exc, OutputParserException)
        if len(methods) == 1 or not usable:
            raise exc
        if _rejected(exc):
            self.state.rejected_methods.add(method)
        log.info("structured output by %s did not work on this server: %s", method, exc)

    def _worked(self, method: str, out: Any) -> Any:
        if self.state.structured_method != method and not self.forced:
            log.info("structured output on this server: %s", method)
            self.state.structured_method = method
        return out

    def invoke(self, value: Any, config: RunnableConfig | None = None) -> Any:
        methods = self._methods()
        for method in methods:
            try:
                return self._worked(method, self.build(method).invoke(value, config))
            except Exception as exc:  # judged by _failed: re-raised unless another may work
                self._failed(method, methods, exc)
        raise OutputParserException(f"no structured output by any of {methods}")

    async def ainvoke(self, value: Any, config: RunnableConfig | None = None) -> Any:
        methods = self._methods()
        for method in methods:
            try:
                return self._worked(method, await self.build(method).ainvoke(value, config))
            except Exception as exc:  # judged by _failed: re-raised unless another may work
                self._failed(method, methods, exc)
        raise OutputParserException(f"no structured output by any of {methods}")

    def runnable(self, name: str) -> Runnable:
        return RunnableLambda(self.invoke, afunc=self.ainvoke, name=name)
