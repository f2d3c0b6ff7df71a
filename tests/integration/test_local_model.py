"""The embedded model (SmolLM2 on llama.cpp) honours per-call output budgets."""

from __future__ import annotations

import pytest
from langchain_core.tools import tool

from core.output_budget import with_max_tokens

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def model():
    from core.local_model import LocalModelUnavailable
    from core.models import get_chat_model

    try:
        return get_chat_model("local")
    except LocalModelUnavailable as exc:
        pytest.skip(f"embedded model not installed: {exc}")


@tool
def search_corpus(query: str) -> str:
    """Search the local documents for a query."""
    return query


def test_a_call_stops_at_its_budget(model):
    message = with_max_tokens(model, 8).invoke("Write a long story about a cat and a dog.")
    assert message.usage_metadata["output_tokens"] <= 8
    assert message.response_metadata["finish_reason"] == "length"
    assert model.max_tokens > 8  # the cached model keeps its own limit


def test_a_tool_choice_under_a_small_budget_is_a_call_or_plain_text(model):
    prompt = "Answer in one long paragraph: who created Wallace and Gromit, and how?"
    message = with_max_tokens(model, 12).bind_tools([search_corpus]).invoke(prompt)
    assert message.usage_metadata["output_tokens"] <= 12
    if not message.tool_calls:  # a final answer cut at the budget is text, never raw JSON
        assert not message.text.lstrip().startswith("{"), message.text
