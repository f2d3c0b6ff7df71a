"""The embedded runtime (llama.cpp, here on the fast test model SmolLM2-135M) honours per-call
output budgets, streams, samples per request and loads once per owner."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from langchain_core.tools import tool
from pydantic import BaseModel, Field

from core.local_seed import sample_round
from core.model_catalogue import TEST_MODEL
from core.output_limits import with_max_tokens
from tests.conftest import ROOT

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def model():
    from core.local_model import LocalChatModel, LocalModelUnavailable

    try:
        return LocalChatModel.load(TEST_MODEL)
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
    assert model.max_tokens > 8  # the shared model keeps its own limit


def test_a_tool_choice_under_a_small_budget_is_a_call_or_plain_text(model):
    prompt = "Answer in one long paragraph: who created Wallace and Gromit, and how?"
    message = with_max_tokens(model, 12).bind_tools([search_corpus]).invoke(prompt)
    assert message.usage_metadata["output_tokens"] <= 12
    if not message.tool_calls:  # a final answer cut at the budget is text, never raw JSON
        assert not message.text.lstrip().startswith("{"), message.text


def test_stream_yields_tokens_that_join_to_the_invoke_text(model):
    greedy = with_max_tokens(model.model_copy(update={"temperature": 0.0}), 24)
    prompt = "Name three colours of the rainbow."
    greedy._llama.reset()  # the same prompt evaluated the same way for both calls
    text = greedy.invoke(prompt).text
    greedy._llama.reset()
    chunks = list(greedy.stream(prompt))
    assert len(chunks) > 1
    assert "".join(c.text for c in chunks) == text


POEM = "Write a short poem about the sea and the moon."
HOT = """
import json, sys
from core.local_model import LocalChatModel
from core.model_catalogue import TEST_MODEL
from core.output_limits import with_max_tokens
hot = with_max_tokens(LocalChatModel.load(TEST_MODEL).model_copy(update={"temperature": 1.0}), 24)
for prompt in sys.argv[1:]:
    print(json.dumps(hot.invoke(prompt).text))
"""


def _hot_answers(*prompts: str) -> list[str]:
    """The embedded model's answers at temperature 1 in a new process, in order."""
    out = subprocess.run(
        [sys.executable, "-c", HOT, *prompts],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return [json.loads(line) for line in out.stdout.splitlines()]


def test_a_calls_sample_depends_on_its_request_not_on_the_calls_before():
    """Also with the prompt cache holding a shared prefix of different lengths before it."""
    (alone,) = _hot_answers(POEM)
    *_, after_others = _hot_answers("Name a fruit.", "Write a short poem about the sea.", POEM)
    assert after_others == alone  # llama-cpp-python's own seed chain would differ here


def test_a_model_told_to_forget_reads_its_next_prompt_whole(model):
    """What an evaluation calls before each question (evals/hotpotqa/jobs.py), so its answer
    does not depend on the question before: a kept prefix is read in other batches."""
    short = with_max_tokens(model, 4)
    short.invoke(POEM)
    assert _cached(short.invoke(POEM)) > 0  # the same prompt again: its tokens were kept
    model.forget_kept_tokens()
    assert _cached(short.invoke(POEM)) == 0


def _cached(message) -> int:
    return message.usage_metadata["input_token_details"]["cache_read"]


def test_a_request_asked_in_another_round_samples_anew(model):
    hot = with_max_tokens(model.model_copy(update={"temperature": 1.0}), 24)
    answers = []
    for n in (0, 1, 0):
        with sample_round(n):
            answers.append(hot.invoke(POEM).text)
    assert answers[0] == answers[2] != answers[1]  # a retry must not get the same text back


def test_async_stream_events_carry_tokens(model):
    import asyncio

    small = with_max_tokens(model, 12)

    async def run() -> list[str]:
        return [
            e["data"]["chunk"].text
            async for e in small.astream_events("Say hello.", version="v2")
            if e["event"] == "on_chat_model_stream"
        ]

    assert len(asyncio.run(run())) > 1


def test_checked_grammar_sampling_gives_the_stock_samplers_greedy_output(model):
    llama = model._llama
    schema = {
        "type": "object",
        "properties": {
            "needs_retry": {"type": "boolean"},
            "confidence": {"type": "number"},
            "reasons": {"type": "array", "items": {"type": "string"}, "maxItems": 3},
        },
        "required": ["needs_retry", "confidence", "reasons"],
    }
    texts = {}
    for checked in (False, True):
        llama.grammar_first_check = checked
        llama.reset()
        out = llama.create_chat_completion(
            messages=[{"role": "user", "content": "Judge: 'Nick Park made Wallace.' JSON."}],
            max_tokens=48,
            temperature=0.0,
            repeat_penalty=1.3,
            response_format={"type": "json_object", "schema": schema},
        )
        texts[checked] = out["choices"][0]["message"]["content"]
    llama.grammar_first_check = True
    stats = llama.last_sampler.stats
    assert texts[True] == texts[False]
    assert stats.first > 0 and stats.first + stats.shortlist + stats.full > stats.first


BATCH_IN_FRESH_PROCESS = """
import json, os, sys, threading
from core.model_catalogue import TEST_MODEL
from core.models import Models, build_chat_model
from core.output_limits import with_max_tokens
before = [os.readlink(f"/proc/self/fd/{fd}") for fd in (1, 2)]
loads, models = [], []
def counted_build(spec):
    loads.append(spec)
    return build_chat_model(spec)
owner = Models(chat=counted_build)
def first_use():
    models.append(owner.chat(f"local:{TEST_MODEL}"))
threads = [threading.Thread(target=first_use) for _ in range(2)]
for t in threads: t.start()
for t in threads: t.join()
replies = with_max_tokens(models[0], 8).batch(["Say hi.", "Say bye."])
after = [os.readlink(f"/proc/self/fd/{fd}") for fd in (1, 2)]
print(json.dumps({"before": before, "after": after, "loads": len(loads),
                  "shared": models[0]._llama is models[1]._llama,
                  "replies": [r.usage_metadata["output_tokens"] for r in replies]}))
"""


def test_batch_at_first_use_loads_once_and_leaves_stdout_alone(model):
    import json
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    proc = subprocess.run(
        [sys.executable, "-c", BATCH_IN_FRESH_PROCESS],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    report = json.loads(proc.stdout.strip().splitlines()[-1])  # stdout still reaches the pipe
    assert report["before"] == report["after"] and "null" not in "".join(report["after"])
    assert report["loads"] == 1 and report["shared"]
    assert all(0 < n <= 8 for n in report["replies"])
    assert "Model metadata" not in proc.stderr and "llama_" not in proc.stderr


class ShortQuery(BaseModel):
    query: str = Field(max_length=30)  # a tool's own bound wins over core.local_schema's


@tool(args_schema=ShortQuery)
def search_briefly(query: str) -> str:
    """Search the local documents for a short query."""
    return query


def test_a_tool_calls_arguments_end_at_their_bound_not_at_the_budget(model):
    # the model writes a long query from this passage; a 30-character bound must cut it
    passage = (
        "Wallace and Gromit are the creation of Nick Park of Aardman Animations in Bristol; the "
        "films include A Grand Day Out, The Wrong Trousers and A Close Shave."
    )
    forced = with_max_tokens(model, 160).bind_tools([search_briefly], tool_choice="any")
    message = forced.invoke("Call search_briefly with this exact query, all of it: " + passage)
    assert message.tool_calls, message.text
    assert 0 < len(message.tool_calls[0]["args"]["query"]) <= 30
    assert message.usage_metadata["output_tokens"] < 40
