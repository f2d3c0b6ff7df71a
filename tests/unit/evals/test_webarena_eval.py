"""WebArena evaluator rules: string matching, URL matching, products, skips, and config loading."""

from __future__ import annotations

import pytest

from evals.webarena.evaluator import (
    LIVE_PAGE_REASON,
    evaluate_offline,
    site_placeholders,
    substitute,
)
from evals.webarena.match import (
    EvaluationSkipped,
    clean_answer,
    exact_match,
    must_include,
    score_string,
    score_url,
    url_match,
)


class FakeJudge:
    """Scripted verdicts; records every call so tests can see when the judge was consulted."""

    def __init__(self, fuzzy: float = 1.0, ua: float = 1.0) -> None:
        self.fuzzy, self.ua, self.calls = fuzzy, ua, []

    def fuzzy_match(self, pred: str, reference: str, question: str) -> float:
        self.calls.append(("fuzzy", pred, reference, question))
        return self.fuzzy

    def ua_match(self, pred: str, reference: str, question: str) -> float:
        self.calls.append(("ua", pred, reference, question))
        return self.ua


def string_task(refs: dict, intent: str = "q?", note: str = "") -> dict:
    return {
        "task_id": 1,
        "intent": intent,
        "eval": {"eval_types": ["string_match"], "reference_answers": refs, "string_note": note},
    }


# --- clean_answer / exact_match / must_include -------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("  Hello ", "hello"),
        ("'Quoted'", "quoted"),
        ('"Double"', "double"),
        ("'mismatched\"", "'mismatched\""),
        ("'", ""),
        ("it's", "it's"),
    ],
)
def test_clean_answer_strips_lowercases_and_drops_one_pair_of_quotes(raw, clean):
    assert clean_answer(raw) == clean


def test_exact_match_ignores_case_quotes_and_outer_space():
    assert exact_match("Quest Lumaflex™ Band", ' "quest lumaflex™ band" ') == 1.0
    assert exact_match("Sprite", "Sprite Stasis Ball") == 0.0


def test_must_include_is_substring_of_cleaned_prediction():
    assert must_include("Stasis Ball", "The SPRITE STASIS BALL 65 cm") == 1.0
    assert must_include("Yoga Mat", "The Sprite Stasis Ball") == 0.0


def test_one_character_reference_is_matched_as_a_token_only_when_tokenizing():
    # "0" inside "10" is the false positive the tokenization prevents.
    assert must_include("0", "there are 10 comments", tokenize=True) == 0.0
    assert must_include("0", "there are 10 comments", tokenize=False) == 1.0
    assert must_include("0", "there are 0 comments", tokenize=True) == 1.0
    assert must_include("2", "2", tokenize=True) == 1.0
    # Longer references are never tokenized.
    assert must_include("10", "there are 100 comments", tokenize=True) == 1.0


def test_real_single_char_task_tokenizes_but_multi_reference_tasks_do_not():
    single = string_task({"must_include": ["0"]})
    assert score_string(single, "The count is 10") == 0.0
    assert score_string(single, "The count is 0.") == 1.0
    several = string_task({"must_include": ["0", "Sprite"]})
    assert score_string(several, "sprite, 10") == 1.0  # tokenize only with a single reference


def test_must_include_on_real_task_28(tasks):
    assert tasks[28]["eval"]["reference_answers"] == {"must_include": ["0"]}
    assert score_string(tasks[28], "0") == 1.0
    assert score_string(tasks[28], "There are 10 such comments") == 0.0


def test_every_must_include_reference_is_required(tasks):
    task = tasks[3]  # top-2 products: both names required
    refs = task["eval"]["reference_answers"]["must_include"]
    assert score_string(task, f"{refs[0]} and {refs[1]}") == 1.0
    assert score_string(task, refs[0]) == 0.0


# --- fuzzy_match and N/A ---------------------------------------------------------------------


def test_fuzzy_match_asks_the_judge_with_the_intent():
    judge = FakeJudge(fuzzy=1.0)
    task = string_task({"fuzzy_match": ["3h 30min"]}, intent="How long?")
    assert score_string(task, "three and a half hours", judge) == 1.0
    assert judge.calls == [("fuzzy", "three and a half hours", "3h 30min", "How long?")]
    assert score_string(task, "2 hours", FakeJudge(fuzzy=0.0)) == 0.0


def test_fuzzy_match_without_judge_is_skipped_but_empty_answer_needs_no_judge():
    task = string_task({"fuzzy_match": ["3h 30min"]})
    with pytest.raises(EvaluationSkipped, match="judge"):
        score_string(task, "three hours")
    assert score_string(task, "") == 0.0


def test_na_task_bare_na_passes_without_judge_explained_na_goes_to_ua_match(tasks):
    task = tasks[22]
    assert task["eval"]["reference_answers"]["fuzzy_match"] == "N/A"
    assert score_string(task, '"N/A"') == 1.0
    judge = FakeJudge(ua=1.0)
    assert score_string(task, "There is no such review", judge) == 1.0
    assert judge.calls == [
        ("ua", "there is no such review", task["eval"]["string_note"], task["intent"])
    ]
    assert score_string(task, "Alice", FakeJudge(ua=0.0)) == 0.0
    with pytest.raises(EvaluationSkipped):
        score_string(task, "There is no such review")


def test_na_ua_match_replaces_the_running_score_as_webarena_does():
    # WebArena assigns (not multiplies) the ua_match score, so an earlier 0 is overwritten.
    task = string_task({"exact_match": "x", "fuzzy_match": "N/A"}, note="no reason")
    assert score_string(task, "not possible", FakeJudge(ua=1.0)) == 1.0


def test_mixed_approaches_multiply(tasks):
    task = tasks[34]  # must_include hotel name and fuzzy travel time
    good = "Hyatt Regency Pittsburgh International Airport, 3h 30min"
    assert score_string(task, good, FakeJudge(fuzzy=1.0)) == 1.0
    assert score_string(task, good, FakeJudge(fuzzy=0.0)) == 0.0
    assert score_string(task, "Some other hotel", FakeJudge(fuzzy=1.0)) == 0.0


# --- URL matching ------------------------------------------------------------------------------


def test_url_gold_in_pred_is_a_substring_test_on_host_and_path():
    ref = "http://h:9999/f/nyc"
    assert url_match(ref, "http://h:9999/f/nyc") == 1.0
    assert url_match(ref, "http://h:9999/f/nyc/") == 1.0  # trailing slash ignored
    assert url_match(ref, "http://h:9999/f/nyc/123-a-car") == 1.0  # gold inside pred
    assert url_match(ref, "https://h:9999/f/nyc") == 1.0  # scheme is not compared
    assert url_match(ref, "http://h:9999/f") == 0.0  # pred inside gold is not enough
    assert url_match(ref, "http://other/f/nyc") == 0.0


def test_url_or_alternatives_any_one_suffices():
    ref = "http://r/f/deeplearning |OR| http://r/f/MachineLearning"
    assert url_match(ref, "http://r/f/MachineLearning") == 1.0
    assert url_match(ref, "http://r/f/deeplearning/5") == 1.0
    assert url_match(ref, "http://r/f/singularity") == 0.0


def test_url_query_parameters_must_match_per_key_extra_keys_allowed():
    ref = "http://s/catalogsearch/result/?q=xbox&product_list_order=price"
    assert url_match(ref, "http://s/catalogsearch/result/?product_list_order=price&q=xbox") == 1.0
    assert (
        url_match(ref, "http://s/catalogsearch/result/?q=xbox&product_list_order=price&p=2") == 1.0
    )
    assert url_match(ref, "http://s/catalogsearch/result/?q=xbox") == 0.0  # key missing
    assert url_match(ref, "http://s/catalogsearch/result/?q=ps5&product_list_order=price") == 0.0
    assert url_match(ref, "http://s/catalogsearch/result/?q=XBOX&product_list_order=price") == 0.0


def test_url_query_values_of_or_alternatives_pool_per_key():
    ref = "http://s/a?q=one |OR| http://s/b?q=two"
    assert url_match(ref, "http://s/a?q=two") == 1.0  # WebArena pools values per key
    assert url_match(ref, "http://s/a?q=three") == 0.0


def test_url_match_on_real_task_with_placeholders(tasks):
    task = tasks[45]
    ref = task["eval"]["reference_url"]
    assert ref.startswith("__GITLAB__/")
    assert score_url(task, ref) == 1.0
    assert score_url(task, ref.replace("created_asc", "created_desc")) == 0.0
    mapped = substitute(task, site_placeholders(["GITLAB=http://127.0.0.1:8023"]))
    assert (
        score_url(
            mapped,
            "http://127.0.0.1:8023/a11yproject/a11yproject.com/-/issues?"
            "state=opened&sort=created_asc",
        )
        == 1.0
    )


def test_unknown_url_rule_is_an_error():
    task = {"task_id": 5, "eval": {"reference_url": "http://x", "url_note": "EXACT"}}
    with pytest.raises(ValueError, match="unknown url matching rule"):
        score_url(task, "http://x")


# --- product and offline skipping -------------------------------------------------------------


def test_task_score_is_the_product_of_its_evaluators(tasks):
    task = tasks[173]  # string_match (fuzzy) + url_match
    assert task["eval"]["eval_types"] == ["string_match", "url_match"]
    url = task["eval"]["reference_url"]
    both = evaluate_offline(task, {"answer": "No, it is open", "url": url}, FakeJudge(fuzzy=1.0))
    assert both.score == 1.0 and both.parts == {"string_match": 1.0, "url_match": 1.0}
    bad_url = evaluate_offline(
        task, {"answer": "open", "url": url.replace("issues/8", "issues/9")}, FakeJudge(fuzzy=1.0)
    )
    assert bad_url.score == 0.0 and bad_url.parts["string_match"] == 1.0
    # GOLD in PRED is a substring test: issue 80's URL contains issue 8's.
    assert evaluate_offline(task, {"answer": "open", "url": url + "0"}, FakeJudge()).score == 1.0
    bad_answer = evaluate_offline(task, {"answer": "closed", "url": url}, FakeJudge(fuzzy=0.0))
    assert bad_answer.score == 0.0


def test_offline_skips_program_html_and_missing_url_with_reasons(tasks):
    html_task = evaluate_offline(tasks[118], {"answer": "done"})
    assert html_task.score is None and html_task.skipped == {"program_html": LIVE_PAGE_REASON}
    mixed = evaluate_offline(tasks[604], {"url": "__REDDIT__/f/MachineLearning"})
    assert mixed.score is None
    assert mixed.parts["url_match"] == 1.0 and "program_html" in mixed.skipped
    no_url = evaluate_offline(tasks[44], {"answer": "x"})
    assert no_url.score is None and "url" in no_url.skipped["url_match"]
    no_judge = evaluate_offline(tasks[173], {"answer": "open", "url": "x"})
    assert no_judge.score is None and "judge" in no_judge.skipped["string_match"]


def test_missing_answer_counts_as_empty_answer(tasks):
    assert evaluate_offline(tasks[0], {}).score == 0.0
