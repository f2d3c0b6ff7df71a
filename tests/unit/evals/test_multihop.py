"""MMInA multi-hop evaluation: the condition queue, END, hop and task success rates."""

from __future__ import annotations

import pytest

from evals.webarena.multihop import (
    HopCondition,
    HopStep,
    evaluate_multihop,
    hop_steps_from_web,
    satisfies,
    summarize_multihop,
)

WIKI = HopCondition(url="http://wiki/Pittsburgh |OR| http://wiki/pittsburgh")
PRICE = HopCondition(must_include=("$12",))
SHOP = HopCondition(url="http://shop/search?q=umbrella")


def test_conditions_must_be_met_in_order_one_hop_per_step():
    steps = [
        HopStep(url="http://shop/search?q=umbrella"),  # hop 3 too early: ignored
        HopStep(url="http://wiki/Pittsburgh/history"),
        HopStep(url="http://shop/item", answer="It costs $12."),
        HopStep(url="http://shop/search?q=umbrella&page=2"),
    ]
    result = evaluate_multihop(steps, [WIKI, PRICE, SHOP])
    assert result.passed and result.status == "TASK_PASS"
    assert (result.hops_passed, result.hops_total) == (3, 3)


def test_failure_is_reported_at_the_first_unmet_hop_one_based():
    steps = [HopStep(url="http://wiki/pittsburgh"), HopStep(url="http://shop/item", answer="$15")]
    result = evaluate_multihop(steps, [WIKI, PRICE, SHOP])
    assert not result.passed
    assert result.hops_passed == 1 and result.status == "FAILED_AT_HOP_2"
    assert evaluate_multihop([], [WIKI]).status == "FAILED_AT_HOP_1"


def test_one_step_advances_at_most_one_hop():
    both = HopStep(url="http://wiki/Pittsburgh", answer="$12")
    assert evaluate_multihop([both], [WIKI, PRICE]).hops_passed == 1
    assert evaluate_multihop([both, both], [WIKI, PRICE]).passed


def test_walk_stops_at_end():
    seen = []

    def steps():
        for s in (HopStep(url="http://wiki/Pittsburgh"), HopStep(url="http://never")):
            seen.append(s)
            yield s

    assert evaluate_multihop(steps(), [WIKI]).passed
    assert len(seen) == 1


def test_answer_conditions_use_webarena_rules():
    assert satisfies(HopStep(answer="'Yes'"), HopCondition(exact_match="yes"))
    assert not satisfies(HopStep(answer="10"), HopCondition(must_include=("0",)))  # tokenized
    assert not satisfies(HopStep(url="http://wiki/Pittsburgh"), PRICE)  # no answer given

    class Judge:
        def fuzzy_match(self, pred, reference, question):
            return float(pred == "golden" and reference == "yellow" and question == "colour?")

        def ua_match(self, pred, reference, question):
            return 0.0

    cond = HopCondition(fuzzy_match="yellow", question="colour?")
    assert satisfies(HopStep(answer="golden"), cond, Judge())
    assert not satisfies(HopStep(answer="blue"), cond, Judge())


def test_condition_from_dict_and_validation():
    assert HopCondition.from_dict({"must_include": "$12"}) == PRICE
    assert HopCondition.from_dict({"url": "http://x"}).url == "http://x"
    with pytest.raises(ValueError):
        HopCondition.from_dict({"colour": "red"})
    with pytest.raises(ValueError):
        HopCondition(url="http://x", exact_match="y")
    with pytest.raises(ValueError):
        evaluate_multihop([HopStep()], [])


def test_summary_hop_and_task_success_rates():
    results = [
        evaluate_multihop(
            [HopStep(url="http://wiki/Pittsburgh"), HopStep(answer="$12")], [WIKI, PRICE]
        ),
        evaluate_multihop([HopStep(url="http://wiki/Pittsburgh")], [WIKI, PRICE]),
        evaluate_multihop([], [WIKI, PRICE, SHOP]),
        evaluate_multihop([HopStep(url="http://wiki/Pittsburgh")], [WIKI]),
    ]
    summary = summarize_multihop(results)
    assert summary["tasks"] == 4
    assert summary["hop_success_rate"] == pytest.approx((2 + 1 + 0 + 1) / (2 + 2 + 3 + 1))
    assert summary["task_success_rate"] == pytest.approx(2 / 4)
    assert summary["statuses"] == {"FAILED_AT_HOP_1": 1, "FAILED_AT_HOP_2": 1, "TASK_PASS": 2}
    assert summary["first_hop_success_by_hops"] == {1: 1.0, 2: 1.0, 3: 0.0}
    assert summarize_multihop([])["tasks"] == 0


def test_web_agent_trajectory_feeds_the_hop_queue():
    from browser.trajectory import TrajectoryStep

    def step(i, url, action):
        return TrajectoryStep(
            index=i, observation="", url=url, raw=action, action=action, valid=True
        )

    steps = [
        step(0, "http://start/", "goto [http://wiki/Pittsburgh]"),
        step(1, "http://wiki/Pittsburgh", "goto [http://shop/item]"),
        step(2, "http://shop/item", "stop [It is $12]"),
    ]
    hops = hop_steps_from_web(steps, final_url="http://shop/item")
    assert [h.answer for h in hops] == [None, None, "It is $12", None]
    assert evaluate_multihop(hops, [WIKI, PRICE]).passed
    assert (
        evaluate_multihop(hop_steps_from_web(steps[:2]), [WIKI, PRICE]).status == "FAILED_AT_HOP_2"
    )
    assert hop_steps_from_web([{"url": "http://x", "action": "stop []"}])[0].answer == ""
