"""bench/multihop_retrieval.py: a chain's written links become hop queries aimed at their gold
paragraph, and reciprocal rank fusion puts first what both rankers rank high."""

from __future__ import annotations

import pytest

from bench.multihop_retrieval import _raw_records, bm25_ranker, chain_links, fused, main
from evals.multihop.dataset import load_multihop

DATA = "tests/data/multihop"


def _first(dataset: str):
    [mq] = load_multihop(DATA, part="dev", limits={dataset: 1}, datasets=(dataset,))
    return mq.question


def test_musique_links_put_the_earlier_answers_in_for_their_placeholders() -> None:
    q = _first("musique")
    links = chain_links(q, _raw_records()[q.id])
    assert len(links) >= 2 and all("#" not in query for query, _ in links)
    first_answer = _raw_records()[q.id]["question_decomposition"][0]["answer"]
    assert first_answer in links[1][0]  # the second link names the bridge the first found
    assert {idx for _, idx in links} <= set(q.gold)


def test_2wiki_links_name_the_subject_whose_paragraph_holds_the_fact() -> None:
    q = _first("2wiki")
    links = chain_links(q, _raw_records()[q.id])
    assert links
    for query, idx in links:
        assert query.startswith(q.paragraphs[idx].title)


def test_hotpotqa_has_no_written_chain() -> None:
    q = _first("hotpotqa")
    assert chain_links(q, _raw_records()[q.id]) == []


def test_fusion_ranks_first_what_both_rankers_rank_high() -> None:
    items = [("a", "apple pie"), ("b", "banana bread"), ("c", "apple banana smoothie")]
    bm25 = bm25_ranker(items)
    backwards = lambda query, k: [2, 1, 0][:k]  # noqa: E731  a second ranker's opinion
    assert fused(bm25, backwards)("apple banana", 1) == [2]
    assert bm25("banana", 3)[0] in (1, 2)


def test_bad_arguments_are_refused_in_one_line(capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["--part", "train"])
    assert exc.value.code == 2
    assert "invalid choice" in capsys.readouterr().err
