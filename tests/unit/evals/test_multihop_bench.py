"""The multihop benchmark's parts: the files' parts and pooled corpus, gold passages and evidence
recall, IRCoT on a scripted model, and `eval multihop` end to end with a stand-in runner."""

from __future__ import annotations

import json

import pytest

from agents.tools.corpus import CorpusIndex
from evals.hotpotqa import agent as hotpotqa_agent
from evals.hotpotqa.dataset import HotpotDataError, load_hotpotqa
from evals.hotpotqa.ircot import IRCoT, next_sentence, stated_answer
from evals.hotpotqa.pooled import corpus_sources, pooled_passages
from evals.multihop.dataset import (
    DATASETS,
    HELD_OUT,
    TUNE,
    files,
    gold_sources,
    load_multihop,
    part_of,
)
from evals.multihop.summary import recall, summarize, table
from evals.report.stats import p95
from tests.conftest import DATA
from tests.unit.evals.eval_command import run_cli
from tests.unit.fakes import ScriptedChatModel

MULTIHOP = DATA / "multihop"


def test_each_file_is_cut_into_dev_held_out_and_tune_parts():
    for name, file in DATASETS.items():
        questions = load_hotpotqa(MULTIHOP / file)
        dev, tune = part_of(questions, "dev"), part_of(questions, "tune")
        assert len(dev) + HELD_OUT + len(tune) == len(questions), name
        assert len(tune) == TUNE and not {q.id for q in dev} & {q.id for q in tune}
    with pytest.raises(HotpotDataError, match="--part must be one of"):
        part_of(questions, "test")


def test_limits_are_per_dataset_and_questions_keep_their_file():
    chosen = load_multihop(
        MULTIHOP, limits={"2wiki": 3, "musique": 2}, datasets=("2wiki", "musique")
    )
    assert [q.dataset for q in chosen] == ["2wiki", "musique"] * 2 + ["2wiki"]  # in turns
    assert chosen[0].file.name == "2wiki_dev250.json" and chosen[1].file.name.startswith("musique")
    with pytest.raises(HotpotDataError, match="datasets must be among"):
        load_multihop(MULTIHOP, datasets=("nq",))


def test_the_pool_holds_every_paragraph_once_and_every_gold_paragraph_has_a_source():
    items = pooled_passages(*files(MULTIHOP))
    assert len(items) == len(set(items)) == 6377
    sources = corpus_sources(items)
    for name, file in DATASETS.items():
        for q in load_hotpotqa(MULTIHOP / file):
            assert len(gold_sources(q, sources)) == len(q.gold) >= 2, (name, q.id)


def test_musique_gold_is_found_by_index_and_its_aliases_score():
    (q,) = [q for q in load_hotpotqa(MULTIHOP / DATASETS["musique"]) if q.aliases][:1]
    assert q.answers[0] == q.answer and len(q.answers) > 1
    first = load_hotpotqa(MULTIHOP / DATASETS["musique"])[0]
    assert first.gold == (0, 4, 15)  # supporting_paragraph_idx, not titles (which repeat)


def test_recall_counts_the_gold_sources_a_run_read():
    assert recall({"read": ["a:1", "b:2", "c:3"]}, ["a:1", "z:9"]) == 0.5
    assert recall({}, ["a:1"]) == 0.0 and recall({"read": ["a:1"]}, []) == 0.0


def test_p95_is_the_value_ninety_five_percent_stay_under():
    assert p95(list(range(1, 21))) == 19 and p95([3]) == 3 and p95([]) == 0.0


def _record(qid, em, calls, read=()):
    return {"id": qid, "em": em, "f1": float(em), "calls": calls, "seconds": calls, "read": read}


def test_the_summary_compares_arms_on_the_questions_all_answered():
    by_arm = {
        "rag": {"a": _record("a", True, 1, ["g1"]), "b": _record("b", False, 1)},
        "ircot": {"a": _record("a", False, 4, ["g1", "g2"]), "b": _record("b", True, 6)},
        "reflective": {"a": _record("a", True, 2, ["g1", "g2"])},  # b not yet answered
    }
    out = summarize(by_arm, {"2wiki": ["a", "b"]}, {"a": ["g1", "g2"], "b": ["g3"]})
    assert out["2wiki"]["rag"]["n"] == 1  # only `a`: every arm answered it
    assert out["all"]["reflective"]["recall"] == 1.0 and out["all"]["rag"]["recall"] == 0.5
    assert out["all"]["ircot"]["vs_rag"] == {"won": 0, "lost": 1}
    assert out["all"]["ircot"]["read_all_gold_wrong"] == 1
    header, *rows = table(out).splitlines()
    ircot = next(row for row in rows if row.startswith("all") and "ircot" in row)
    column = header.index("gold read, wrong")  # the gold read, still answered wrong
    assert ircot[column:].split()[0] == "1"


def test_ircot_reasons_retrieves_with_each_sentence_and_stops_at_the_answer():
    index = CorpusIndex.from_passages(
        [
            ("The Ride (1994 film)", "The Ride is a 1994 Czech film directed by Jan Svěrák."),
            ("Jan Svěrák", "Jan Svěrák is a Czech director, son of Zdeněk Svěrák."),
            ("Filler", "Nothing to see here."),
        ]
    )
    steps = iter(
        [
            "The Ride was directed by Jan Svěrák. Then more.",
            "Jan Svěrák is the son of Zdeněk Svěrák. So the answer is: Zdeněk Svěrák.",
        ]
    )
    model = ScriptedChatModel(responder=lambda *a: next(steps), calls=[])
    ircot = IRCoT(model, index, reader="cot")
    assert ircot.answer("Who is the father of the director of The Ride?") == "Zdeněk Svěrák"
    assert ircot.last_stated == "Zdeněk Svěrák"
    assert len(model.calls) == 2 and ircot.last_steps[0] == "The Ride was directed by Jan Svěrák."
    assert "Wikipedia Title: Jan Svěrák" in model.calls[1]["prompt"]
    assert "So the answer is: Paris." in model.calls[0]["prompt"]  # a demonstration
    assert sorted(ircot.last_read) == ["Jan Svěrák", "The Ride (1994 film)"]  # no filler


def test_ircot_with_the_direct_reader_reads_once_more_and_stops_at_its_step_limit():
    index = CorpusIndex.from_passages([("A", "Alpha text."), ("B", "Beta text.")])
    model = ScriptedChatModel(
        responder=lambda p, *a: "Beta" if "Reply" in p else "Alpha.", calls=[]
    )
    ircot = IRCoT(model, index, reader="direct", max_steps=3)
    assert ircot.answer("What?") == "Beta"
    assert len(model.calls) == 3  # a sentence said again is nothing new: the reader answers


def test_the_answer_a_sentence_states():
    assert stated_answer("So the answer is: Paris.") == "Paris"
    assert stated_answer("Polanski was born in Paris.") is None
    assert next_sentence("A: Bob is tall. He is 2 m.") == "Bob is tall."


def test_eval_multihop_runs_every_arm_question_by_question_and_resumes(
    tmp_path, capsys, monkeypatch
):
    made = []

    def fake_runner(*, model, max_retries, home, graph, reflections, callbacks, corpus):
        made.append(graph)

        def answer_fn(question, paragraphs):
            for callback in callbacks:
                callback.on_chat_model_start({}, [])
            return ("wrong" if graph == "rag" else "yes"), []

        answer_fn.last_read = ["passages.jsonl:1"]
        return answer_fn

    monkeypatch.setattr(hotpotqa_agent, "default_runner", fake_runner)
    argv = ["eval", "multihop", "--limit", "hotpotqa=2,musique=1", "--arms", "rag,reflective"]
    argv += ["--out", str(tmp_path / "out"), "--json"]
    assert run_cli(argv, tmp_path / "h") == 0
    out = json.loads(capsys.readouterr().out)
    assert out["questions"] == {"hotpotqa": 2, "musique": 1}
    assert made == ["rag", "reflective"] * 3  # question by question, every arm on each
    assert set(out["by_dataset"]) == {"hotpotqa", "musique", "all"}
    every = out["by_dataset"]["all"]
    assert (
        every["rag"]["n"] == 3 and every["rag"]["em"] == 0.0 and every["reflective"]["calls"] == 1
    )
    assert (tmp_path / "out" / "summary.json").is_file()
    records = (tmp_path / "out" / "rag" / "results.jsonl").read_text().splitlines()
    assert json.loads(records[0])["read"] == ["passages.jsonl:1"]
    made.clear()
    assert run_cli(argv, tmp_path / "h") == 0  # resumed: nothing left to answer
    assert made == [] and json.loads(capsys.readouterr().out)["by_dataset"]["all"]["rag"]["n"] == 3


def test_eval_multihop_refuses_bad_limits_and_arms(tmp_path, capsys):
    for bad in (["--limit", "2wiki=x"], ["--limit", "nq=3"], ["--arms", "rag,oracle"]):
        assert run_cli(["eval", "multihop", *bad], tmp_path / "h") == 2
        assert "error:" in capsys.readouterr().err
