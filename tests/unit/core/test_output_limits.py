"""Per-call output budgets: applied per call without touching the cached model, honoured by the
embedded model, and output cut at its budget is closed and validated instead of leaking raw JSON."""

from __future__ import annotations

import pytest
from langchain_core.tools import tool
from pydantic import BaseModel, Field

from core.local_schema import parse_json_prefix
from core.output_limits import OUTPUT_LIMITS, with_max_tokens
from core.structured import ask_structured
from tests.unit.fake_llama import FakeLlama, fake_local_model


class Verdict(BaseModel):
    needs_retry: bool
    reason: str


@tool
def search(query: str) -> str:
    """Search the corpus."""
    return query


def test_copy_carries_the_budget_and_the_original_keeps_its_own():
    llama = FakeLlama()
    model = fake_local_model(llama, max_tokens=320)
    small = with_max_tokens(model, 48)
    assert (small.max_tokens, model.max_tokens) == (48, 320)
    assert small._llama is llama  # the weights are shared, not reloaded
    small.invoke("hi")
    assert llama.requests[-1]["max_tokens"] == 48


def test_chat_openai_gets_the_budget_in_its_own_field():
    from langchain_openai import ChatOpenAI

    model = ChatOpenAI(model="gpt-4o-mini", api_key="k", base_url="http://127.0.0.1:9/v1")
    small = with_max_tokens(model, 64)
    assert small.max_tokens == 64 and model.max_tokens is None
    assert small.root_client is model.root_client


def test_objects_without_a_limit_field_and_none_are_unchanged():
    thing = object()
    assert with_max_tokens(thing, 10) is thing
    model = fake_local_model(FakeLlama())
    assert with_max_tokens(model, None) is model
    with pytest.raises(ValueError, match="positive"):
        with_max_tokens(model, 0)


def test_every_role_writes_a_bounded_output():
    assert all(0 < v <= 512 for v in OUTPUT_LIMITS.values())


def test_bind_max_tokens_applies_to_one_call():
    llama = FakeLlama()
    model = fake_local_model(llama, max_tokens=320)
    model.bind(max_tokens=20).invoke("hi")
    model.invoke("hi")
    assert [r["max_tokens"] for r in llama.requests] == [20, 320]


def test_ask_structured_sends_the_budget_and_validates():
    llama = FakeLlama(['{"needs_retry": false, "reason": "fine"}'])
    out = ask_structured(fake_local_model(llama), Verdict, "judge", max_tokens=32)
    assert out == Verdict(needs_retry=False, reason="fine")
    assert llama.requests[-1]["max_tokens"] == 32
    assert "schema" in llama.requests[-1]["response_format"]


def test_structured_output_cut_at_its_budget_is_closed_and_validated():
    llama = FakeLlama(
        ['{"needs_retry": true, "reason": "the answer names no sou'], finish_reason="length"
    )
    out = ask_structured(fake_local_model(llama), Verdict, "judge", max_tokens=16)
    assert out == Verdict(needs_retry=True, reason="the answer names no sou")


def test_cut_before_a_required_field_fails_validation_not_silently():
    llama = FakeLlama(['{"reason": "long reasoning that never ends'], finish_reason="length")
    assert ask_structured(fake_local_model(llama), Verdict, "judge", attempts=1) is None


def test_a_final_answer_cut_at_its_budget_is_text_not_raw_json():
    llama = FakeLlama(['{"final_answer": "Nick Park created Wall'], finish_reason="length")
    message = fake_local_model(llama).bind_tools([search]).invoke("who?")
    assert message.text == "Nick Park created Wall" and not message.tool_calls
    assert message.response_metadata["finish_reason"] == "length"


def test_a_cut_tool_call_keeps_its_arguments():
    llama = FakeLlama(['{"tool": "search", "args": {"query": "Wallace and Gro'])
    message = fake_local_model(llama).bind_tools([search]).invoke("who?")
    assert message.tool_calls[0]["name"] == "search"
    assert message.tool_calls[0]["args"] == {"query": "Wallace and Gro"}


def test_a_tool_choice_bounds_its_arguments_strings_and_nothing_else():
    from core.local_schema import QUERY_CHARS, TOOL_ARG_CHARS, tool_choice_schema

    llama = FakeLlama(['{"tool": "search", "args": {"query": "Wallace"}}'])
    fake_local_model(llama).bind_tools([search]).invoke("who?")
    choice = llama.requests[-1]["response_format"]["schema"]["oneOf"]
    assert choice[0]["properties"]["args"]["properties"]["query"]["maxLength"] == QUERY_CHARS
    url = {"type": "string"}
    own = {"type": "string", "maxLength": 12}
    goto = {"name": "goto", "parameters": {"properties": {"url": url, "key": own}}}
    args = tool_choice_schema([{"function": goto}])["oneOf"][0]["properties"]["args"]
    assert args["properties"]["url"]["maxLength"] == TOOL_ARG_CHARS
    assert args["properties"]["key"]["maxLength"] == 12
    assert choice[0]["properties"]["tool"] == {"const": "search"}
    assert "maxLength" not in choice[1]["properties"]["final_answer"]  # an answer is not cut

    class Named(BaseModel):
        name: str = Field(max_length=40)  # validated by pydantic, not put in the grammar

    structured = FakeLlama(['{"name": "x"}'])
    ask_structured(fake_local_model(structured), Named, "name?")
    assert "maxLength" not in str(structured.requests[-1]["response_format"])


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": 1}', {"a": 1}),
        ('{"a": "x\ny"}', {"a": "x\ny"}),
        ('{"a": ["b", "c', {"a": ["b", "c"]}),
        ('{"a": "ok", "b": tr', {"a": "ok"}),
        ("plain words", None),
    ],
)
def test_parse_json_prefix(text, expected):
    assert parse_json_prefix(text) == expected


def test_a_reflection_cut_inside_its_lesson_keeps_its_verdict_in_one_call():
    from agents.research.reflect_on_task import ReflectionOutput

    cut = '{"needs_retry": true, "confidence": 0.4, "reflection": "The answer names no creat'
    llama = FakeLlama([cut], finish_reason="length")
    out = ask_structured(fake_local_model(llama), ReflectionOutput, "judge", max_tokens=160)
    assert out is not None and out.needs_retry and out.reasons == []
    assert out.reflection == "The answer names no creat" and len(llama.requests) == 1


def test_tool_argument_strings_are_bounded_wherever_they_sit():
    from core.local_schema import QUERY_CHARS, TOOL_ARG_CHARS, tool_choice_schema

    params = {
        "type": "object",
        "properties": {
            "query": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "tags": {"type": "array", "items": {"type": "string"}},
            "mode": {"type": "string", "enum": ["fast", "slow"]},
            "note": {"type": ["string", "null"]},
        },
    }
    tools = [{"function": {"name": "find", "parameters": params}}]
    args = tool_choice_schema(tools)["oneOf"][0]["properties"]["args"]["properties"]
    assert args["query"]["anyOf"][0]["maxLength"] == QUERY_CHARS
    assert "maxLength" not in args["query"]["anyOf"][1]
    assert args["tags"]["items"]["maxLength"] == TOOL_ARG_CHARS
    assert "maxLength" not in args["mode"]
    assert args["note"]["maxLength"] == TOOL_ARG_CHARS


def test_the_grammar_asks_for_every_field_even_those_with_defaults():
    from agents.research.reflect_on_task import ReflectionOutput
    from core.local_schema import bounded_schema, schema_of

    schema = bounded_schema(schema_of(ReflectionOutput))
    assert set(schema["required"]) == {
        "needs_retry",
        "confidence",
        "reflection",
        "strategy",
        "reasons",
    }
