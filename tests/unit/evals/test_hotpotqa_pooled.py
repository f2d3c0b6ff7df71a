"""The pooled setting and the baselines a research agent is measured against: one corpus of every
question's paragraphs, built once; `closed`, `rag` and `react` answer on a scripted model and
their calls and tokens are counted."""

from __future__ import annotations

import json

import pytest
from langchain_core.messages import AIMessage

from evals.common.calls import CallCounter
from evals.hotpotqa import agent as hotpotqa_agent
from evals.hotpotqa.baselines import RAG_K, baseline_answer_fn
from evals.hotpotqa.dataset import Paragraph, load_hotpotqa
from evals.hotpotqa.pooled import pooled_corpus, pooled_passages
from evals.hotpotqa.single import HotpotSettings
from tests.conftest import DATA
from tests.unit.evals.eval_command import run_cli
from tests.unit.fakes import ScriptedChatModel

FILE = DATA / "hotpotqa" / "distractor_dev60.json"


def _questions(tmp_path, records):
    path = tmp_path / "q.json"
    path.write_text(json.dumps(records))
    return path


def _record(qid, question, answer, paragraphs):
    return {
        "_id": qid,
        "question": question,
        "answer": answer,
        "context": [[title, [text]] for title, text in paragraphs],
    }


def test_the_pooled_corpus_holds_every_paragraph_once_and_is_built_once(tmp_path):
    path = _questions(
        tmp_path,
        [
            _record("a", "Q1?", "x", [("Ada", "Ada was born in 1815."), ("Moon", "It is far.")]),
            _record("b", "Q2?", "y", [("Ada", "Ada was born in 1815."), ("Sun", "It is hot.")]),
        ],
    )
    assert pooled_passages(path) == [
        ("Ada", "Ada was born in 1815."),
        ("Moon", "It is far."),
        ("Sun", "It is hot."),
    ]
    folder = pooled_corpus(path, tmp_path / "out")
    saved = folder / "passages.jsonl"
    first = saved.stat().st_mtime_ns
    assert pooled_corpus(path, tmp_path / "out") == folder
    assert saved.stat().st_mtime_ns == first  # kept: a resumed run searches the same corpus
    saved.write_text('{"title": "Other", "text": "changed"}\n')
    pooled_corpus(path, tmp_path / "out")
    assert "Sun" in saved.read_text()  # a folder that holds other passages is rebuilt


def test_the_dev_file_pools_six_hundred_paragraphs():
    assert len(pooled_passages(FILE)) == 600


def test_settings_refuse_an_unknown_setting_and_own_paragraph_graphs_on_pooled(tmp_path):
    with pytest.raises(ValueError, match="--setting must be one of"):
        HotpotSettings(file=FILE, out=tmp_path, setting="open", max_tool_steps=0).validate()
    with pytest.raises(ValueError, match="reads the question's own paragraphs"):
        HotpotSettings(
            file=FILE, out=tmp_path, setting="pooled", graph="direct", max_tool_steps=0
        ).validate()
    pooled = HotpotSettings(
        file=FILE, out=tmp_path, setting="pooled", graph="rag", max_tool_steps=0
    )
    pooled.validate()
    assert pooled.identity()["setting"] == "pooled"
    assert "setting" not in HotpotSettings(file=FILE, out=tmp_path, max_tool_steps=0).identity()
    # a baseline's results resume whatever the retries, tool steps or memory it never uses
    other = HotpotSettings(
        file=FILE, out=tmp_path, setting="pooled", graph="rag", max_retries=1, memory="off"
    )
    assert other.identity() == pooled.identity() and "max_retries" not in other.identity()


def _pooled(tmp_path):
    path = _questions(
        tmp_path,
        [
            _record("a", "Who wrote the notes?", "Ada", [("Notes", "Ada wrote the notes.")]),
            _record("b", "Where is X?", "y", [(f"P{i}", f"Filler {i} text.") for i in range(8)]),
        ],
    )
    return str(pooled_corpus(path, tmp_path / "out"))


def test_rag_reads_the_top_passages_of_one_retrieval_in_one_call(tmp_path):
    model = ScriptedChatModel(responder=lambda *a: "Ada.", calls=[])
    counter = CallCounter()
    fn = baseline_answer_fn("rag", model, corpus=_pooled(tmp_path), callbacks=[counter])
    answer, trials = fn("Who wrote the notes?", [])
    assert answer == "Ada" and trials == ["Ada"]
    (call,) = model.calls
    assert "Notes: Ada wrote the notes." in call["prompt"]  # found in the pooled corpus
    assert call["prompt"].count("Filler") < RAG_K and counter.calls == 1


def test_rag_over_a_questions_own_paragraphs_without_a_corpus():
    model = ScriptedChatModel(responder=lambda *a: "1815", calls=[])
    fn = baseline_answer_fn("rag", model)
    answer, _ = fn("When was Ada born?", [Paragraph("Ada", ("Ada was born in 1815.",))])
    assert answer == "1815" and "Ada was born in 1815." in model.calls[0]["prompt"]


def test_closed_book_sees_no_passage(tmp_path):
    model = ScriptedChatModel(responder=lambda *a: "Ada Lovelace", calls=[])
    fn = baseline_answer_fn("closed", model, corpus=_pooled(tmp_path))
    assert fn("Who wrote the notes?", [])[0] == "Ada Lovelace"
    assert "Ada wrote the notes" not in model.calls[0]["prompt"]


def test_react_searches_with_the_corpus_tool_then_answers(tmp_path):
    def responder(prompt, title, tools, messages):
        if not any(m.type == "tool" for m in messages):
            return {"tool": "corpus_search", "args": {"query": "notes"}}
        return "Ada"

    model = ScriptedChatModel(responder=responder, calls=[])
    counter = CallCounter()
    fn = baseline_answer_fn("react", model, corpus=_pooled(tmp_path), callbacks=[counter])
    assert fn("Who wrote the notes?", [])[0] == "Ada"
    assert counter.calls == 2 and model.calls[0]["tools"] == ["corpus_search"]
    assert "Ada wrote the notes." in model.calls[1]["prompt"]  # the tool's passage, read


def test_react_that_never_stops_searching_answers_nothing(tmp_path):
    model = ScriptedChatModel(
        responder=lambda *a: {"tool": "corpus_search", "args": {"query": "more"}}, calls=[]
    )
    fn = baseline_answer_fn("react", model, corpus=_pooled(tmp_path))
    assert fn("Who wrote the notes?", [])[0] == ""


def test_the_call_counter_adds_up_the_tokens_calls_report():
    from langchain_core.outputs import ChatGeneration, LLMResult

    message = AIMessage(
        "x",
        usage_metadata={
            "input_tokens": 100,
            "output_tokens": 5,
            "total_tokens": 105,
            "input_token_details": {"cache_read": 60},
        },
    )
    counter = CallCounter()
    for _ in range(2):
        counter.on_llm_end(LLMResult(generations=[[ChatGeneration(message=message)]]))
    assert counter.tokens() == {"prompt_tokens": 200, "cached_tokens": 120, "output_tokens": 10}


def test_an_unknown_baseline_is_refused():
    with pytest.raises(ValueError, match="baseline must be one of"):
        baseline_answer_fn("oracle", ScriptedChatModel(responder=lambda *a: "", calls=[]))


def test_hotpotqa_graphs_side_by_side_on_the_pooled_corpus(tmp_path, capsys, monkeypatch):
    """--graphs runs each graph under OUT/GRAPH over one pooled corpus and prints one row each;
    the corpus reaches every graph's answer function."""
    gold = {q.question: q.answer for q in load_hotpotqa(FILE, limit=2)}
    seen = []

    def fake_runner(*, model, max_retries, home, graph, reflections, callbacks, corpus):
        seen.append((graph, corpus))

        def answer_fn(question, paragraphs):
            for callback in callbacks:
                for _ in range(1 if graph == "rag" else 3):
                    callback.on_chat_model_start({}, [])
            return (gold[question] if graph == "reflective" else "wrong"), []

        return answer_fn

    monkeypatch.setattr(hotpotqa_agent, "default_runner", fake_runner)
    argv = ["eval", "hotpotqa", "--file", str(FILE), "--limit", "2", "--setting", "pooled"]
    argv += ["--graphs", "rag,reflective", "--out", str(tmp_path / "out"), "--json"]
    assert run_cli(argv, tmp_path / "h") == 0
    out = json.loads(capsys.readouterr().out)
    assert out["setting"] == "pooled" and list(out["by_graph"]) == ["rag", "reflective"]
    assert out["by_graph"]["rag"]["em"] == 0.0 and out["by_graph"]["reflective"]["em"] == 1.0
    assert out["by_graph"]["rag"]["calls"] == 1 and out["by_graph"]["reflective"]["calls"] == 3
    # paired with rag, question by question: reflective right on both where rag was wrong
    assert out["by_graph"]["reflective"]["vs_rag"] == {"won": 2, "lost": 0}
    assert out["by_graph"]["rag"]["vs_rag"] == {"won": 0, "lost": 0}
    corpora = {corpus for _, corpus in seen}
    assert len(corpora) == 2 and all(c.endswith("corpus") for c in corpora)  # one per graph
    for graph in ("rag", "reflective"):
        assert len((tmp_path / "out" / graph / "results.jsonl").read_text().splitlines()) == 2
    bad = ["eval", "hotpotqa", "--file", str(FILE), "--graphs", "rag,oracle"]
    assert run_cli(bad, tmp_path / "h") == 2
    assert "--graphs takes distinct names" in capsys.readouterr().err
