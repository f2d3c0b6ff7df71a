"""A choice between two named sides decided from the facts' values, not by the model: the
sides each whole, the order the question asks, dates of what it dates, a side's belonging
reached through a linked name, and a stated answer that is no side counting for none."""

from __future__ import annotations

import pytest

from agents.research.compare import because, chosen, options, order, side_of, unvalued
from graphs import build_reflective_graph
from tests.unit.agents.research.test_hop import FIRST, ChainScript
from tests.unit.agents.research.test_hop_checks import _tools
from tests.unit.research_script import run, wire

__all__ = ["wire"]

DIRECTOR = "Which film has the director born first, Gniazdo or The Summer Of Massacre?"


def pages(*texts: str) -> list[str]:
    """Passages as a run reads them, titled with the name each opens with."""
    return [f"{' '.join(t.split()[:2])} (source: s)\n{t}" for t in texts]


@pytest.mark.parametrize(
    ("question", "sides"),
    [
        ("Who was born first Am Rong or Ava DuVernay ?", ("Am Rong", "Ava DuVernay")),
        (
            "Which band, Letters to Cleo or Screaming Trees, had more members?",
            ("Letters to Cleo", "Screaming Trees"),
        ),
        (
            "Which film has the director who was born first, Who'S Your Brother? or "
            "The Last Outpost (1951 Film)?",
            ("Who'S Your Brother", "The Last Outpost (1951 Film)"),
        ),
        (
            "Which film has the director born later, A Demon For Trouble or Now, Voyager?",
            ("A Demon For Trouble", "Now, Voyager"),
        ),
        ("Where was the director of film Kolya born?", None),
    ],
)
def test_a_choices_sides_each_whole(question, sides):
    assert options(question) == sides


def test_the_order_asked_is_the_questions_own_word_not_a_sides():
    assert order("Which magazine was started first, Arthur's Magazine or First for Women?") == (
        "earlier"
    )
    assert order("Which film came out later, The Last Outpost or Kolya?") == "later"
    assert order("Which film came out, The Last Outpost or Kolya?") is None
    assert order("Which band, Letters to Cleo or Screaming Trees, had more members?") == "more"
    assert order("Which was published more frequently, Popular Science or Girlfriends?") is None


def test_two_dates_pick_the_side_the_question_orders_by():
    born = pages("Am Rong was born in 1929.", "Ava DuVernay was born in 1972.")
    assert chosen("Who was born first Am Rong or Ava DuVernay ?", [], born) == "Am Rong"
    assert chosen("Who is younger, Am Rong or Ava DuVernay?", [], born) == "Ava DuVernay"
    same_year = pages("A Bee was born on 3 May 1929.", "C Dee was born in 1929.")
    assert chosen("Who was born first, A Bee or C Dee?", [], same_year) is None
    months = pages("A Bee was born on 3 May 1929.", "C Dee was born on March 9, 1929.")
    assert chosen("Who was born first, A Bee or C Dee?", [], months) == "C Dee"


def test_a_value_is_a_pages_not_the_models():
    """The model states dates it read elsewhere: a value counts only from a page read."""
    said = ["Am Rong was born in 1929.", "Ava DuVernay was born in 1972."]
    assert chosen("Who was born first, Am Rong or Ava DuVernay?", said) is None
    assert unvalued("Who was born first, Am Rong or Ava DuVernay?", said) == [
        "Am Rong",
        "Ava DuVernay",
    ]


def test_a_date_counts_only_for_what_the_question_dates():
    read = pages("Am Rong died in 2001.", "Ava DuVernay was born in 1972.")
    assert chosen("Who was born first, Am Rong or Ava DuVernay?", [], read) is None
    assert unvalued("Who was born first, Am Rong or Ava DuVernay?", [], read) == ["Am Rong"]
    span = pages("Am Rong (3 March 1912 – 1987) was a singer.", "Ava DuVernay died in 1990.")
    assert chosen("Who died first, Am Rong or Ava DuVernay?", [], span) == "Am Rong"


def test_a_count_of_what_the_question_counts():
    read = pages("Letters to Cleo had 6 members.", "Screaming Trees had four members.")
    question = "Which band, Letters to Cleo or Screaming Trees, had more members?"
    assert chosen(question, [], read) == "Letters to Cleo"
    albums = pages("Letters to Cleo had 6 albums.", "Screaming Trees had four members.")
    assert chosen(question, [], albums) is None


def test_a_sides_belonging_is_reached_through_its_linked_name():
    facts = [
        "Gniazdo was born in 1974.",  # a misreading: the film's year, not its director's
        "The Summer of Massacre was directed by Joe Castro.",
    ]
    read = pages("Joe Castro was born in 1927.")
    assert chosen(DIRECTOR, facts, read) is None  # Gniazdo's director is not known yet
    assert unvalued(DIRECTOR, facts, read) == ["Gniazdo"]
    assert side_of("Joe Castro", DIRECTOR, facts, read) == "The Summer Of Massacre"
    assert side_of("Jan Rybkowski", DIRECTOR, facts, read) is None  # no side's: no answer
    facts += ["Gniazdo is a 1974 Polish film directed by Jan Rybkowski."]
    assert unvalued(DIRECTOR, facts, read) == ["Jan Rybkowski"]
    read += pages("Jan Rybkowski (3 March 1912 – 1987) was a Polish film director.")
    assert chosen(DIRECTOR, facts, read) == "Gniazdo"


FILMS = [  # the question's search finds the films and look-alikes, not the directors
    ("Gniazdo", "Gniazdo is a 1974 Polish film directed by Jan Rybkowski."),
    ("The Summer of Massacre", "The Summer of Massacre is a film directed by Joe Castro."),
    *(
        (f"{name} ({kind})", f"A {kind} named for the film {name}, its director born first.")
        for name in ("The Summer of Massacre",)
        for kind in ("novel", "song", "game")
    ),
    ("Jan Rybkowski", "Jan Rybkowski was a Polish screenwriter and director, born in 1912."),
    ("Joe Castro", "Joe Castro is an American actor, writer and director, born in 1927."),
]


def test_the_chain_answers_a_choice_by_its_values_not_by_the_models_conclusion(wire):
    """The question's search reads the films, not their directors. Hop 1 names a director as
    its answer (no side's name): his rival is searched; hop 2 concludes wrongly with one
    director's year known: the other is searched; hop 3, both directors' pages read, needs no
    call: their years decide (3 calls)."""
    hop1 = (
        "Gniazdo was directed by Jan Rybkowski. The Summer of Massacre was directed by Joe "
        "Castro. So the answer is: Joe Castro."
    )
    hop2 = "Jan Rybkowski was born in 1912. So the answer is: The Summer Of Massacre."
    hop3 = "Joe Castro was born in 1927. So the answer is: The Summer Of Massacre."
    model = wire(ChainScript(hop1, hop2, hop3))
    ctx = wire.context(**FIRST, tools=_tools(FILMS, k=2))
    nodes, _, state = run(build_reflective_graph(), ctx, query=DIRECTOR, store=wire.store)
    assert nodes == ["goal_setting", "hop", "hop", "hop", "reflect_on_answer"]
    assert state["answer"] == "Gniazdo" and len(model.calls) == 3
    assert [c["searched"] for c in state["chain"]] == ["Jan Rybkowski", "Joe Castro", ""]
    last = state["chain"][-1]
    assert last["how"] == "compared" and last["facts"] == [  # what the choice rests on: pages
        "Gniazdo is a 1974 Polish film directed by Jan Rybkowski.",
        "Jan Rybkowski was a Polish screenwriter and director, born in 1912.",
        "The Summer of Massacre is a film directed by Joe Castro.",
        "Joe Castro is an American actor, writer and director, born in 1927.",
    ]


def test_a_choice_without_commas_takes_each_name_not_what_follows():
    question = "Was Judith S. Beck or Félix Erviti Barcelona born first?"
    assert options(question) == ("Judith S. Beck", "Félix Erviti Barcelona")


def test_the_pages_read_give_the_values_the_model_misread_or_left_out():
    """The model stated only a misreading ("born in 1958": the film's year); the films' and
    directors' lead sentences give the link and both birth dates."""
    pages = [
        "Passionate Summer (source: a)\nPassionate Summer is a 1958 British drama film directed "
        "by Rudolph Cartier and starring Virginia McKenna.It was shot in Jamaica.",  # no space
        "Little Presents (source: b)\nLittle Presents is a 1961 Finnish comedy film directed by "
        "Jack Witikka.",
        "Rudolph Cartier (source: c)\nRudolph Cartier (17 April 1904 – 7 June 1994) was an "
        "Austrian-born television director.",
        "Jack Witikka (source: d)\nJack Witikka was a Finnish director, born in Helsinki in "
        "1916. He died in 1996.",
    ]
    question = "Which film has the director born later, Passionate Summer or Little Presents?"
    misread = ["Rudolph Cartier was born in 1958."]
    assert chosen(question, misread, pages) == "Little Presents"
    assert chosen(question, misread, pages[:3]) is None  # Witikka's page not read yet
    assert unvalued(question, misread, pages[:3]) == ["Jack Witikka"]
    assert side_of("Jack Witikka", question, [], pages) == "Little Presents"
    lead = "Passionate Summer is a 1958 British drama film directed by Rudolph Cartier and"
    assert because(question, misread, pages) == [f"{lead} starring Virginia McKenna."] + [
        "Rudolph Cartier (17 April 1904 – 7 June 1994) was an Austrian-born television director.",
        "Little Presents is a 1961 Finnish comedy film directed by Jack Witikka.",
        "Jack Witikka was a Finnish director, born in Helsinki in 1916.",
    ]
    died = "Which film has the director who died first, Passionate Summer or Little Presents?"
    assert chosen(died, [], pages) is None  # the lead gives Witikka's birth, not his death
    assert chosen(died, ["Jack Witikka died in 1996."], pages) is None  # the model's: no value


def test_a_reply_is_read_by_sentence_and_clause_not_at_an_initial():
    from agents.research.hop_checks import sentences

    reply = (
        "Judith S. Beck was born on May 5, 1954. Jack Witikka was born in 1916, while Rudolph "
        "Cartier was born in 1904; Beck is a psychologist. So the answer is: X."
    )
    assert sentences(reply) == [
        "Judith S. Beck was born on May 5, 1954.",
        "Jack Witikka was born in 1916",
        "Rudolph Cartier was born in 1904",
        "Beck is a psychologist.",
        "So the answer is: X.",
    ]


def test_a_date_the_lead_does_not_give_is_read_where_the_page_says_the_deed_asked():
    """Wavves's lead names no year; its second sentence says it was formed, and when. A later
    sentence without the deed ("released") gives no value, and a lead's date wins."""
    question = "Which band was formed first, Wavves or Social Code?"
    wavves = (
        "Wavves (source: a)\nWavves is an American rock band based in San Diego, California. "
        "Its album King of the Beach was released in 2010. Formed in 2008 by singer-songwriter "
        "Nathan Williams (born June 12, 1986), the band also features Alex Gates."
    )
    social = (
        "Social Code (source: b)\nSocial Code was a Canadian alternative rock group formed in "
        "1999 in St. Albert. It was formed again in 2012."
    )
    assert chosen(question, [], [wavves, social]) == "Social Code"
    assert any("Formed in 2008" in f for f in because(question, [], [wavves, social]))
    assert chosen(question.replace("first", "later"), [], [wavves, social]) == "Wavves"
    # the deed never said past the lead: no value, the side is what to search
    bare = wavves.replace("Formed in 2008", "Started")
    assert chosen(question, [], [bare, social]) is None
    assert unvalued(question, [], [bare, social]) == ["Wavves"]
