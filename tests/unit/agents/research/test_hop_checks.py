"""What a hop's reply establishes, judged without a call: a fact is held by one passage, an
answer is of the kind asked (a date where "when" is asked, not the bridge that has one), and a
comparison's answer stands only when the facts heard each side it names."""

from __future__ import annotations

from contextlib import contextmanager

import pytest

from agents.research.hop import split_reasoning
from agents.research.hop_checks import answers, asked, fits, holds, lacking, sides
from graphs import build_reflective_graph
from tests.unit.agents.research.test_hop import FIRST, LAST, ChainScript
from tests.unit.research_script import run, wire

__all__ = ["wire"]

LOVEJOY = "[1] Terry Lovejoy (source: a)\nTerry Lovejoy is an Australian amateur astronomer."
BALLET = "[2] American Ballet Theatre (source: b)\nA ballet company in the United States."


def test_a_sentence_whose_names_are_scattered_over_passages_is_a_guess_not_a_fact():
    said = split_reasoning(
        "Terry Lovejoy is an astronomer. Terry Lovejoy is a citizen of the United States. "
        "So the answer is: American Ballet Theatre.",
        "What is the leading ballet company in the country of Lovejoy?",
        [LOVEJOY, BALLET],
        [],
    )
    assert said.facts == ["Terry Lovejoy is an astronomer."]
    assert said.guess == "Terry Lovejoy is a citizen of the United States."
    assert said.answer is None  # the chain broke at the guess: it is searched first


def test_a_sentence_relating_facts_already_found_holds():
    facts = ["The Eiffel Tower was completed in 1889.", "The Statue was dedicated in 1886."]
    assert holds("1886 is earlier than 1889.", [], facts)
    assert holds("Terry Lovejoy is Australian.", [BALLET, LOVEJOY], [])
    assert not holds("Terry Lovejoy lives in the United States.", [LOVEJOY, BALLET], [])


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("When was the company that made Aladdin founded?", "a date"),
        ("In what year did the director of Kolya die?", "a date"),
        ("What is the date of death of Alexander Rendel's father?", "a date"),
        ("How many Super Cups has the club won?", "a number"),
        ("Are Aladdin and Song of the South by the same studio?", "yes or no"),
        ("Where was the director of film Kolya born?", ""),
        ("Who is older, Annie Morton or Terry Richardson?", ""),
    ],
)
def test_the_kind_of_answer_a_question_asks(question, kind):
    assert asked(question) == kind


def test_an_answer_of_the_kind_asked():
    assert fits("21 November 1856", "a date") and fits("the 5th century", "a date")
    assert fits("two", "a number") and fits("12", "a number")
    assert not fits("the East India Company", "a date") and not fits("Ajax", "a number")
    assert fits("Vienna", "") and fits("Jan Svěrák", "yes or no")


def test_a_comparisons_sides_are_the_names_it_gives_each_whole():
    assert sides("Are Aladdin and Song of the South by the same studio?") == [
        "Aladdin",
        "Song of the South",
    ]
    assert sides("Who was born first, Annie Morton or Terry Richardson?") == [
        "Annie Morton",
        "Terry Richardson",
    ]


def test_what_an_answer_lacks_before_it_stands():
    when = "When was the company that made Aladdin founded?"
    assert lacking(when, "Walt Disney", []) == ["Walt Disney"]  # the bridge, not a date
    assert lacking(when, "1923", []) == []
    same = "Are Aladdin and Song of the South by the same studio?"
    assert lacking(same, "yes", ["Aladdin was made by Disney."]) == ["Song of the South"]
    both = ["Aladdin was made by Disney.", "Song of the South was made by Disney."]
    assert lacking(same, "yes", both) == []
    assert lacking("Where was the director of Kolya born?", "Prague", []) == []


def _tools(passages, k):
    from agents.tools.corpus import CorpusIndex, make_corpus_tool

    index = CorpusIndex.from_passages(passages)

    @contextmanager
    def tools(_):
        yield [make_corpus_tool(index, k=k)]

    return tools


ACME = [
    ("Roadrunner trap", "The Roadrunner trap was made by Acme Corp."),
    ("Acme Corp", "Acme Corp is a maker of traps, founded in 1901."),
]
WHEN = "When was the maker of the Roadrunner trap founded?"


def test_a_bridge_answered_where_a_date_is_asked_is_read_again_for_a_date(wire):
    """Both passages are read at once; the hop answers with the maker, not its founding year:
    its search finds nothing new, so the last reading is asked for a date (3 calls)."""
    model = wire(ChainScript("So the answer is: Acme Corp.", last="1901"))
    ctx = wire.context(**FIRST, tools=_tools(ACME, k=2))
    _, _, state = run(build_reflective_graph(), ctx, query=WHEN, store=wire.store)
    assert state["answer"] == "1901" and len(model.calls) == 3
    assert state["chain"][-1]["how"] == "last reading"
    assert "Reply with the answer only: a date;" in model.calls[-1]["prompt"]
    assert LAST in model.calls[-1]["prompt"]


STUDIOS = [  # the question's own search finds the Aladdins, not the other side
    ("Aladdin (1992 film)", "Aladdin is a 1992 film by Walt Disney Pictures."),
    *(
        (f"Aladdin ({kind})", f"Aladdin ({kind}) retells Aladdin, from the same studio.")
        for kind in ("musical", "remake", "sequel", "game")
    ),
    ("Song of the South", "Song of the South is a 1946 film by Walt Disney Productions."),
]
SAME = "Are Aladdin and Song of the South made by the same studio?"


def test_a_comparison_answered_from_one_side_searches_the_other(wire):
    """The question's search finds Song of the South and Aladdin's look-alikes; hop 1 heard one
    side and said no: Aladdin is searched, and hop 2, having read its page, answers from both
    sides (3 calls)."""
    one_side = "Song of the South is by Walt Disney Productions. So the answer is: no."
    both = "Aladdin is by Walt Disney Pictures. So the answer is: yes."
    model = wire(ChainScript(one_side, both))
    ctx = wire.context(**FIRST, tools=_tools(STUDIOS, k=1))
    nodes, _, state = run(build_reflective_graph(), ctx, query=SAME, store=wire.store)
    assert nodes == ["goal_setting", "hop", "hop", "reflect_on_answer"]
    assert state["answer"] == "yes" and len(model.calls) == 3
    assert state["chain"][0]["searched"] == "Aladdin"
    assert "1992 film by Walt Disney Pictures" in model.calls[2]["prompt"]
    assert "1992 film by" not in model.calls[1]["prompt"]


def test_a_bare_yes_or_no_answers_only_a_question_asking_yes_or_no():
    from agents.research.hop_checks import answers

    assert not answers("Where was the director of film Herra Lahtinen Lähtee Lipettiin born?", "no")
    assert not answers("Who was born first, Am Rong or Ava DuVernay?", "Yes")
    assert answers("Are Aladdin and Song of the South produced by the same company?", "no")
    assert answers("Where was he born?", "Norway")


def test_the_prompts_placeholder_is_no_answer():
    assert not answers("What other film is the cast member of Kolya in?", "<answer>")
    assert not answers("What other film is the cast member of Kolya in?", "<Answer>.")
    assert answers("What other film is the cast member of Kolya in?", "Dark Blue World")
