"""HotpotQA: the official answer normalisation, EM and F1, data loading, and the runner."""

from __future__ import annotations

import pytest

from evals.common.resources import WorkerResources
from evals.hotpotqa.dataset import HotpotDataError, HotpotQuestion, Paragraph, load_hotpotqa
from evals.hotpotqa.metrics import exact_match_score, f1_score, normalize_answer
from tests.conftest import DATA

DEV60 = DATA / "hotpotqa" / "distractor_dev60.json"


@pytest.mark.parametrize(
    ("raw", "norm"),
    [
        ("The Beatles", "beatles"),
        ("a  cat and AN owl", "cat and owl"),
        ("U.S.A.!", "usa"),
        ("  Gesellschaft   mit\tbeschränkter Haftung ", "gesellschaft mit beschränkter haftung"),
        ("theatre", "theatre"),  # articles only as whole words
        ("Rock-n-roll, the 1950's", "rocknroll 1950s"),
    ],
)
def test_normalisation_lowercases_drops_punctuation_articles_and_extra_space(raw, norm):
    assert normalize_answer(raw) == norm


def test_exact_match_after_normalisation():
    assert exact_match_score("the Beatles.", "Beatles")
    assert not exact_match_score("The Rolling Stones", "Beatles")


def test_f1_counts_overlapping_tokens():
    f1, precision, recall = f1_score("Barack Obama Jr", "Barack Obama")
    assert precision == pytest.approx(2 / 3) and recall == pytest.approx(1.0)
    assert f1 == pytest.approx(0.8)
    assert f1_score("the cat the cat", "cat")[0] == pytest.approx(2 * 0.5 * 1 / 1.5)
    assert f1_score("Paris", "London") == (0.0, 0.0, 0.0)
    assert f1_score("", "London") == (0.0, 0.0, 0.0)


def test_f1_yes_no_must_match_exactly():
    assert f1_score("yes", "no") == (0.0, 0.0, 0.0)
    assert f1_score("no it is not", "no") == (0.0, 0.0, 0.0)
    assert f1_score("Yes.", "yes")[0] == 1.0


def test_loads_the_real_sample_with_ten_paragraphs_each():
    questions = load_hotpotqa(DEV60)
    assert len(questions) == 60
    q = questions[0]
    assert q.answer == "Gesellschaft mit beschränkter Haftung"
    assert len(q.paragraphs) == 10 and all(p.sentences for p in q.paragraphs)
    assert ("VIVA Media", 0) in q.supporting_facts
    assert q.paragraphs[5].title == "VIVA Media" and "VIVA" in q.paragraphs[5].text
    assert len(load_hotpotqa(DEV60, limit=3)) == 3


def test_original_layout_and_bad_files(tmp_path):
    path = tmp_path / "orig.json"
    path.write_text(
        '[{"_id": "x", "question": "q", "answer": "a", '
        '"context": [["T", ["s1 ", "s2"]]], "supporting_facts": [["T", 1]]}]'
    )
    (q,) = load_hotpotqa(path)
    assert q.id == "x" and q.paragraphs[0].text == "s1 s2" and q.supporting_facts == (("T", 1),)
    path.write_text('[{"question": "q"}]')
    with pytest.raises(HotpotDataError, match="not a HotpotQA record"):
        load_hotpotqa(path)
    with pytest.raises(HotpotDataError, match="does not exist"):
        load_hotpotqa(tmp_path / "missing.json")
    with pytest.raises(HotpotDataError, match="limit"):
        load_hotpotqa(DEV60, limit=0)


def make_questions() -> list[HotpotQuestion]:
    para = (Paragraph("T", ("Some text.",)),)
    return [
        HotpotQuestion(id=str(i), question=f"q{i}", answer=a, paragraphs=para)
        for i, a in enumerate(["Paris", "blue", "1969", "Ada"])
    ]


def failing_runner(**kwargs):
    def answer_fn(question, paragraphs):
        raise TimeoutError("model took too long")

    return answer_fn


def test_a_failing_question_is_recorded_as_wrong_with_its_error(tmp_path):
    from evals.hotpotqa.jobs import answer_question

    q = load_hotpotqa(DEV60, limit=1)[0]
    payload = {
        "file": str(DEV60),
        "id": q.id,
        "model": "m",
        "graph": "reflective",
        "max_retries": 0,
        "home": str(tmp_path),
        "reflections": True,
        "runner": f"{__name__}:failing_runner",
    }
    resources = WorkerResources()
    try:
        record = answer_question(payload, resources)
    finally:
        resources.close()
    assert record["error"] == "TimeoutError: model took too long"
    assert not record["em"] and record["f1"] == 0.0 and record["answer"] == ""
