"""The direct answerer's candidates: spans of the paragraphs, ranked by the question; the model
may answer only with one of them."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from core.structured import choice_schema
from evals.hotpotqa.candidates import candidate_answers
from evals.hotpotqa.coverage import coverage
from evals.hotpotqa.dataset import Paragraph

PARAGRAPHS = [
    Paragraph("Seine", ["The Seine flows through Paris.", " It is 777 km long."]),
    Paragraph(
        "Ada Lovelace",
        ["Ada Lovelace was born on 10 December 1815 in London.", " Her father was Lord Byron."],
    ),
]


def test_yes_and_no_come_first_only_when_the_question_asks_for_one():
    assert candidate_answers("Was Ada Lovelace born in London?", PARAGRAPHS)[:2] == ["yes", "no"]
    assert "yes" not in candidate_answers("Where was Ada Lovelace born?", PARAGRAPHS)


def test_the_span_in_the_questions_sentence_ranks_before_the_others():
    found = candidate_answers("Where was Ada Lovelace born?", PARAGRAPHS)
    assert found.index("London") < found.index("Paris")
    assert "10 December 1815" in found and "Lord Byron" in found


def test_a_name_the_question_says_ranks_last_unless_it_offers_a_choice():
    bridge = candidate_answers("Where was Ada Lovelace born?", PARAGRAPHS)
    assert bridge.index("Ada Lovelace") > bridge.index("London")
    choice = candidate_answers("Who was born first, Ada Lovelace or Lord Byron?", PARAGRAPHS)
    assert choice.index("Ada Lovelace") < choice.index("Seine")
    which_of = candidate_answers("Which of Ada Lovelace and Lord Byron was older?", PARAGRAPHS)
    assert which_of.index("Ada Lovelace") < which_of.index("10 December 1815")


def test_a_capitalised_word_opening_a_sentence_is_no_candidate_and_articles_are_dropped():
    found = candidate_answers("Who was her father?", PARAGRAPHS)
    assert "Her" not in found and "Seine" in found and "The Seine" not in found


def test_the_list_is_cut_to_the_limit():
    assert len(candidate_answers("Where?", PARAGRAPHS, limit=3)) == 3


def test_the_schema_takes_a_candidate_and_nothing_else():
    schema = choice_schema(["yes", "no", "London"])
    assert schema.model_validate({"answer": "London"}).answer == "London"
    with pytest.raises(ValidationError):
        schema.model_validate({"answer": "The answer is London"})
    assert schema.model_json_schema()["properties"]["answer"]["enum"] == ["yes", "no", "London"]


def test_coverage_counts_the_questions_whose_gold_answer_is_a_candidate(tmp_path):
    context = [["Ada Lovelace", ["Ada Lovelace was born on 10 December 1815 in London."]]]
    records = [
        {"_id": "a", "question": "Where was Ada Lovelace born?", "answer": "London"},
        {"_id": "b", "question": "What did Ada Lovelace write?", "answer": "the first program"},
    ]
    for r in records:
        r.update(id=r.pop("_id"), type="bridge", level="easy", supporting_facts=[], context=context)
    path = tmp_path / "dev.json"
    path.write_text(json.dumps(records))
    assert coverage(str(path)) == {"questions": 2, "gold_among_candidates": 1, "candidates": 40}
