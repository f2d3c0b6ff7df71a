"""Two sides asked whether they are from one country, decided by what their pages' lead
sentences say (a people's adjective, else a country named as where a thing is), reaching a
film's director through the page that links them; and the lead sentences themselves, read
whole past initials, titles and brackets. The sentences are 2WikiMultihopQA's (tests/data)."""

from __future__ import annotations

import pytest

from agents.research.compare import alike, chosen, side_of, unvalued
from agents.research.hop_checks import lacking
from agents.research.names import first_sentence, leads
from agents.research.values import countries_in, date_in
from tests.unit.agents.research.test_compare import pages


@pytest.mark.parametrize(
    ("question", "sides"),
    [
        (
            "Are The Collector (2002 Film) and Gulîstan, Land Of Roses both from the same country?",
            ("The Collector (2002 Film)", "Gulîstan, Land Of Roses"),
        ),
        (
            "Are both churches, Basilica Of St. Lucia, Timotes and Saint Augustine By The Sea "
            "Catholic Church, located in the same country?",
            ("Basilica Of St. Lucia, Timotes", "Saint Augustine By The Sea Catholic Church"),
        ),
        (
            "Do director of film Invisible Ghost and director of film Africa Texas Style have "
            "the same nationality?",
            ("Invisible Ghost", "Africa Texas Style"),
        ),
        (
            "Are director of film Thought Crimes: The Case Of The Cannibal Cop and director of "
            "film Love And Other Disasters both from the same country?",
            ("Thought Crimes: The Case Of The Cannibal Cop", "Love And Other Disasters"),
        ),
        (
            "Do both Ek Tho Chance and Laila Majnu (1976 Film) films have the directors from "
            "the same country?",
            ("Ek Tho Chance", "Laila Majnu (1976 Film)"),
        ),
        (
            "Do the movies Touch Of Pink and The Head Of The Family (1922 Film), originate "
            "from the same country?",
            ("Touch Of Pink", "The Head Of The Family (1922 Film)"),
        ),
        (
            "Do Samuel Langdon and Emil Aloysius Wcela share the same nationality?",
            ("Samuel Langdon", "Emil Aloysius Wcela"),
        ),
        ("Are Aladdin and Song of the South produced by the same company?", None),
        ("Who was born first, Am Rong or Ava DuVernay?", None),
    ],
)
def test_the_two_sides_asked_about_each_whole(question, sides):
    assert alike(question) == sides


@pytest.mark.parametrize(
    ("lead", "countries"),
    [
        ("Andrew Marton( born Endre Marton; 26 January 1904 – 7 January 1992) was a "
         "Hungarian- American film director.", {"Hungary", "United States"}),
        ("Alek Keshishian( born 30 July 1964 in Beirut, Lebanon) is an Armenian- American "
         "film and commercial director", {"Armenia", "United States"}),
        ("Anatole Litvak( May 21, 1902 – December 15, 1974) was a Ukrainian- born, "
         "Lithuanian- American filmmaker", {"Lithuania", "United States"}),
        ("Sidney Olcott( September 20, 1872 – December 16, 1949) was a Canadian- born film "
         "producer", {"Canada"}),  # where born, when nothing else is said
        ("The Dove's Lost Necklace is a 1994 French/ Tunisian drama film", {"France", "Tunisia"}),
        ("The Tailor from Ulm is a 1978 West German drama film", {"Germany"}),
        ("X is a 2005 English-language Canadian film", {"Canada"}),
        ("Muzaffargarh railway station is situated at Muzaffargarh, Pakistan.", {"Pakistan"}),
        ("The Basilica of St. Lucia is located in the town of Timotes, in the Andes of the "
         "South American country of Venezuela.", {"Venezuela"}),
        ("Gulîstan, Land of Roses is a documentary film about women guerillas in combat "
         "against the Islamic State of Iraq and the Levant", None),  # a name in a name
        ("Branksome Hall is an independent girls' school.", None),
    ],
)  # fmt: skip
def test_where_a_lead_says_its_subject_is_from(lead, countries):
    assert countries_in(lead) == (frozenset(countries) if countries else None)


def test_two_pages_from_one_country_say_yes_two_apart_no():
    question = (
        "Are both movies, Law Of The Barbary Coast and My Piece Of The Pie, from the same country?"
    )
    read = pages(
        "Law of the Barbary Coast is a 1949 American historical crime film.",
        "My Piece of the Pie is a 2011 French comedy- drama film.",
    )
    assert chosen(question, [], read) == "no"
    assert chosen(question, [], read[:1]) is None  # one side's page not read: searched
    assert unvalued(question, [], read[:1]) == ["My Piece Of The Pie"]
    assert lacking(question, "yes", [], read[:1]) == ["My Piece Of The Pie"]
    assert side_of("yes", question, [], read) == "yes"  # a yes or no stands as it is
    compound = pages("Touch of Pink is a 2004 Canadian- British romantic comedy film.",
                     "The Head of the Family is a 1922 British silent comedy film.")  # fmt: skip
    movies = (
        "Do the movies Touch Of Pink and The Head Of The Family, originate from the same country?"
    )
    assert chosen(movies, [], compound) == "yes"


def test_a_films_director_is_reached_through_the_page_that_names_him():
    """The director's page names the film after him; the film's names him in a later
    sentence: both link, and the value is the director's page's, not the film's."""
    question = (
        "Are director of film Sleepers and director of film The Juniper Tree (Film) from the "
        "same country?"
    )
    read = [
        "The Juniper Tree (film) (source: a)\nThe Juniper Tree is a 1990 Icelandic fantasy "
        "film. It was directed and written by Nietzchka Keene.",
        "Nietzchka Keene (source: b)\nProfessor Nietzchka Keene (1952–2004) was an American "
        "film director best known for The Juniper Tree.",
        "Sleepers (source: c)\nSleepers is a 1996 American legal crime drama film directed by "
        "Barry Levinson.",
    ]
    assert unvalued(question, [], read) == ["Barry Levinson"]
    read.append("Barry Levinson (source: d)\nBarry Levinson( born April 6, 1942) is an American "
                "filmmaker.")  # fmt: skip
    assert chosen(question, [], read) == "yes"


def test_a_lead_is_read_whole_past_titles_initials_and_brackets():
    assert first_sentence("Mr. Arkadin( first released in Spain, 1955), is a film. It") == (
        "Mr. Arkadin( first released in Spain, 1955), is a film."
    )
    assert first_sentence("Adiós, Sabata( lit. Goodbye, Sabata) is a 1970 film. Then.") == (
        "Adiós, Sabata( lit. Goodbye, Sabata) is a 1970 film."
    )
    assert first_sentence("Bishop Marián Andrej Pacák, C.Ss.R. is a bishop. He") == (
        "Bishop Marián Andrej Pacák, C.Ss.R. is a bishop."
    )
    assert first_sentence("Judith S. Beck is a psychologist. She") == (
        "Judith S. Beck is a psychologist."
    )
    assert leads(
        [
            "Royal St. George's College (source: s)\nRoyal St. George's College is a "
            "school in Toronto, Canada. It"
        ]
    ) == [  # fmt: skip
        "Royal St. George's College is a school in Toronto, Canada."
    ]


def test_a_life_span_whose_dash_was_lost_still_gives_both_dates():
    lead = "Charles Barton( May 25, 1902 December 5, 1981) was a film director."
    assert date_in(lead, "birth") == (1902, 5, 25)
    assert date_in(lead, "death") == (1981, 12, 5)
    glued = "Éric Rohmer (21 March 192011 January 2010), was a French film director."
    assert date_in(glued, "birth") is None  # two dates run together: no birth to trust


def test_text_glued_where_the_corpus_lost_a_space_is_read_apart():
    """The 2Wiki corpus joins sentences without a space ("D.C.The picture"), and dates too
    ("26 April1897")."""
    read = leads(["F (source: s)\nF is a film made in Washington, D.C.The picture stars G."])
    assert read == ["F is a film made in Washington, D.C."]
    sirk = "Douglas Sirk( born Hans Detlef Sierck; 26 April1897 – 14 January 1987) was a director."
    assert date_in(sirk, "birth") == (1897, 4, 26) and date_in(sirk, "death") == (1987, 1, 14)
