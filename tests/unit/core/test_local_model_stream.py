"""The embedded model streams tokens (sync and async), keeps the event loop free, serialises
concurrent calls on one loaded model, and loads once when threads race (llama faked)."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest
from langchain_core.messages import AIMessageChunk
from langchain_core.tools import tool
from pydantic import BaseModel

from core.local_stream import AnswerStreamer
from core.models import Models
from tests.unit.fake_llama import FakeLlama, fake_local_model


@tool
def search(query: str) -> str:
    """Search the corpus."""
    return query


class Answer(BaseModel):
    answer: str


def _join(chunks: list[AIMessageChunk]) -> AIMessageChunk:
    total = chunks[0]
    for chunk in chunks[1:]:
        total = total + chunk
    return total


def test_stream_yields_a_chunk_per_token_and_joins_to_invoke():
    model = fake_local_model(FakeLlama(["Nick Park created Wallace and Gromit."]))
    chunks = list(model.stream("who?"))
    assert len(chunks) >= 6
    joined = _join(chunks)
    assert joined.text == model.invoke("who?").text == "Nick Park created Wallace and Gromit."
    assert joined.usage_metadata["output_tokens"] == 6
    assert joined.response_metadata["finish_reason"] == "stop"


def test_a_streamed_final_answer_is_text_not_json():
    llama = FakeLlama(['{"final_answer": "Nick Park, at Aardman."}'])
    chunks = list(fake_local_model(llama).bind_tools([search]).stream("who?"))
    joined = _join(chunks)
    assert joined.text == "Nick Park, at Aardman." and not joined.tool_calls
    assert sum(1 for c in chunks if c.text) > 1  # the answer arrives piece by piece


def test_a_streamed_tool_call_arrives_whole_in_the_aggregate():
    llama = FakeLlama(['{"tool": "search", "args": {"query": "Wallace and Gromit"}}'])
    chunks = list(fake_local_model(llama).bind_tools([search]).stream("who?"))
    joined = _join(chunks)
    assert joined.text == ""
    assert [(c["name"], c["args"]) for c in joined.tool_calls] == [
        ("search", {"query": "Wallace and Gromit"})
    ]


def test_structured_output_streams_json_and_parses_the_whole():
    model = fake_local_model(FakeLlama(['{"answer": "Nick Park"}']))
    parsed = list(model.with_structured_output(Answer).stream("who?"))
    assert parsed[-1] == Answer(answer="Nick Park")


def test_leaving_a_stream_early_releases_the_model():
    llama = FakeLlama(["one two three four five six"])
    model = fake_local_model(llama)
    for _chunk in model.stream("count"):
        break
    assert not llama.call_lock.locked() and llama.active == 0
    assert model.invoke("again").text  # not deadlocked


def test_astream_runs_in_a_worker_and_leaves_the_loop_free():
    model = fake_local_model(FakeLlama(["a b c d e f g h"], delay=0.03))

    async def run() -> tuple[int, int]:
        ticks = 0
        done = asyncio.Event()

        async def ticker() -> None:
            nonlocal ticks
            while not done.is_set():
                ticks += 1
                await asyncio.sleep(0.005)

        task = asyncio.create_task(ticker())
        chunks = [c async for c in model.astream("go")]
        done.set()
        await task
        return len(chunks), ticks

    n_chunks, ticks = asyncio.run(run())
    assert n_chunks >= 8
    assert ticks >= 10  # the loop kept running while the model generated (~0.24 s)


def test_astream_events_emit_token_events():
    model = fake_local_model(FakeLlama(["Nick Park made them."]))

    async def run() -> list[str]:
        return [
            e["data"]["chunk"].text
            async for e in model.astream_events("who?", version="v2")
            if e["event"] == "on_chat_model_stream"
        ]

    tokens = asyncio.run(run())
    assert "".join(tokens) == "Nick Park made them." and len(tokens) >= 4


def test_concurrent_ainvoke_and_batch_are_serialised():
    llama = FakeLlama(["x y z"], delay=0.02)
    model = fake_local_model(llama)

    async def run() -> list[str]:
        results = await asyncio.gather(*(model.ainvoke(f"q{i}") for i in range(3)))
        return [r.text for r in results]

    assert asyncio.run(run()) == ["x y z"] * 3
    assert [m.text for m in model.batch(["a", "b", "c"])] == ["x y z"] * 3
    assert llama.max_active == 1


def test_an_error_in_the_worker_reaches_the_async_caller():
    class Broken(FakeLlama):
        def create_chat_completion(self, **params):
            raise RuntimeError("llama.cpp failed")

    model = fake_local_model(Broken())

    async def run() -> None:
        async for _ in model.astream("go"):
            pass

    with pytest.raises(RuntimeError, match="llama.cpp failed"):
        asyncio.run(run())


def test_racing_first_uses_build_one_model():
    builds = []

    def slow_build(spec):
        builds.append(spec)
        time.sleep(0.1)
        return object()

    models = Models(chat=slow_build)
    got: list[object] = []
    threads = [threading.Thread(target=lambda: got.append(models.chat("local"))) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(builds) == 1 and len(got) == 4 and len({id(g) for g in got}) == 1
    assert Models(chat=slow_build).chat("local") is not got[0]  # another owner builds its own


@pytest.mark.parametrize(
    ("pieces", "shown"),
    [
        (['{"final_', 'answer": "Ni', "ck Pa", 'rk"}'], ["", "Ni", "ck Pa", "rk"]),
        (['{"tool": "search", "args": {"query": "x"}}'], [""]),
        (['{ "final_answer" : "a\\n', 'b"}'], ["a\n", "b"]),
    ],
)
def test_answer_streamer(pieces, shown):
    streamer = AnswerStreamer()
    assert [streamer.feed(p) for p in pieces] == shown


def test_threads_follow_omp_num_threads_as_ray_sets_it_per_worker(monkeypatch):
    from core.local_model import LocalChatModel

    monkeypatch.setenv("OMP_NUM_THREADS", "1")  # a Ray worker with one CPU
    assert LocalChatModel(model_path="fake.gguf").n_threads == 1
    for unusable in ("", "0", "two", "²"):
        monkeypatch.setenv("OMP_NUM_THREADS", unusable)
        assert LocalChatModel(model_path="fake.gguf").n_threads == 2
    assert LocalChatModel(model_path="fake.gguf", n_threads=3).n_threads == 3
