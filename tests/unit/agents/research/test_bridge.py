"""A link the question asks through ("the director of film X") read from the work's own page
("directed by D") and searched with no call: the role and the work each whole, the name after
"by" past the words describing it, another role's "by" not taken for this one. The sentences
are 2WikiMultihopQA's (tests/data)."""

from __future__ import annotations

import pytest

from agents.research.bridge import bridge, role_of
from agents.research.kin import kin_of, relative
from graphs import build_reflective_graph
from tests.unit.agents.research.test_hop import FIRST, ChainScript
from tests.unit.agents.research.test_hop_checks import _tools
from tests.unit.research_script import run, wire

__all__ = ["wire"]


@pytest.mark.parametrize(
    ("question", "asked"),
    [
        (
            "Where was the director of film Herra Lahtinen Lähtee Lipettiin born?",
            ("director", "Herra Lahtinen Lähtee Lipettiin"),
        ),
        (
            "What is the place of birth of the director of film Aashiq (2001 Film)?",
            ("director", "Aashiq (2001 Film)"),
        ),
        ("Where did the director of film India Speaks die?", ("director", "India Speaks")),
        (
            "Who is the father of the composer of song I Am The World?",
            ("composer", "I Am The World"),
        ),
        ("Which country the director of film Desire Inc. is from?", ("director", "Desire Inc.")),
        ("Who is the paternal grandfather of Duke Xuan Of Qin?", None),  # a relative: kin_of
    ],
)  # fmt: skip
def test_the_role_asked_about_and_its_work_each_whole(question, asked):
    assert role_of(question) == asked


def page(title: str, text: str) -> str:
    return f"{title} (source: s)\n{text}"


@pytest.mark.parametrize(
    ("question", "text", "name"),
    [
        (
            "Where was the performer of song Greatest Love (Ciara Song) born?",
            '"Greatest Love" is a song by American singer-songwriter Ciara released in 2019.',
            "Ciara",
        ),
        (
            "Where was the performer of song Choctaw Bingo born?",
            '"Choctaw Bingo" is a southern rock song written and performed by musician James '
            "McMurtry.",
            "James McMurtry",  # "song written by": the writer's, not the performer's
        ),
        (
            "Where was the director of film Never Fear born?",
            "Never Fear is an American drama film directed and co-written by Ida Lupino.",
            "Ida Lupino",
        ),
        (
            "Who is the father of the composer of song I Am The World?",
            '"I Am the World" is a song recorded by the Bee Gees, written and sung by Robin Gibb.',
            "Robin Gibb",  # recorded by: the performers
        ),
        (
            "Where was the performer of song Greatest Love (Ciara Song) born?",
            '"Greatest Love" is a song byAmerican singer-songwriter Ciara.',  # glued
            "Ciara",
        ),
        (
            "Where was the director of film Sad Song Of Yellow Skin born?",
            "Sad Song of Yellow Skin is a 1970 direct cinema-style documentary film on the "
            "effects of the Vietnam War.",
            None,  # "direct" with no "by": no one named
        ),
    ],
)
def test_the_name_after_by_on_the_works_page(question, text, name):
    work = role_of(question)[1]
    title = work.replace(" (Ciara Song)", " (Ciara song)")
    found = bridge(
        question, [page("Other", f"A film directed by Someone Else. {text}"), page(title, text)]
    )
    assert (found[1] if found else None) == name
    if found:
        assert found[0] == [text]


@pytest.mark.parametrize(
    ("question", "asked"),
    [
        ("Who is the paternal grandfather of Duke Xuan Of Qin?",
         (("father", "father"), "Duke Xuan Of Qin")),
        ("What nationality is Gevherhan Sultan (Daughter Of Selim Ii)'s father?",
         (("father",), "Gevherhan Sultan (Daughter Of Selim Ii)")),
        ("Where was the place of death of Alessandro Ruspoli, 2Nd Prince Of Cerveteri's father?",
         (("father",), "Alessandro Ruspoli, 2Nd Prince Of Cerveteri")),
        ("Where was the place of burial of Lorenzo Cybo's mother?", (("mother",), "Lorenzo Cybo")),
        ("Who is Edward Wingfield, 2Nd Viscount Powerscourt's paternal grandmother?",
         (("father", "mother"), "Edward Wingfield, 2Nd Viscount Powerscourt")),
        ("Where was the husband of Agnes Of Austria born?", (("spouse",), "Agnes Of Austria")),
        ("Who is Agnes Of Austria (1281–1364)'s father-in-law?", None),
        ("Where was the director of film Kolya born?", None),
    ],
)  # fmt: skip
def test_the_relative_asked_about_and_the_person_each_whole(question, asked):
    assert kin_of(question) == asked


@pytest.mark.parametrize(
    ("step", "text", "name"),
    [
        ("father", "He was the son and successor of Hammurabi by an unknown mother.", "Hammurabi"),
        ("father", "She is the youngest daughter of the festival's founder and organiser Michael "
         "Eavis and his second wife Jean.", "Michael Eavis"),
        ("mother", "She is the youngest daughter of the festival's founder and organiser Michael "
         "Eavis and his second wife Jean.", "Jean"),
        ("father", "He is thought a son of Amlaíb mac Gofraid (d.941).", "Amlaíb mac Gofraid"),
        ("father", "Duke Xuan was the eldest of the three sons of his father Duke De of Qin.",
         "Duke De of Qin"),
        ("father", "His mother was the daughter of MP James Balfour.", ""),  # her father
        ("mother", "Lorenzo was the son of Franceschetto Cybo and Maddalena de' Medici.",
         "Maddalena de' Medici"),
        ("spouse", "In 1296 she married Andrew III of Hungary.", "Andrew III of Hungary"),
        ("spouse", "She was the wife of King Andrew III of Hungary.", "King Andrew III of Hungary"),
    ],
)  # fmt: skip
def test_the_relative_a_persons_page_names(step, text, name):
    assert relative(step, text) == name


def test_a_grandfather_is_the_fathers_father_read_page_by_page():
    """The father is read from the person's page; his page read, his father from it: both
    sentences are facts; his page not read, the father is what to search."""
    question = "Who is the paternal grandfather of Engelbert Iii Of The Mark?"
    own = page("Engelbert III of the Mark", "Engelbert III of the Mark was the son of Adolph II.")
    father = page("Adolph II", "Adolph II was the son of Engelbert II of the Mark.")
    assert bridge(question, [own]) == (
        ["Engelbert III of the Mark was the son of Adolph II."],
        "Adolph II",
    )
    assert bridge(question, [own, father]) == (
        [
            "Engelbert III of the Mark was the son of Adolph II.",
            "Adolph II was the son of Engelbert II of the Mark.",
        ],
        "Engelbert II of the Mark",
    )


DIRECTED = [
    ("Herra Lahtinen lähtee lipettiin", "Herra Lahtinen lähtee lipettiin is a 1939 Finnish "
     "comedy film directed by Toivo Särkkä."),
    ("Toivo Särkkä", "Toivo Särkkä( 20 November 1890 – 8 January 1975) was a Finnish "
     "filmmaker from Helsinki."),
]  # fmt: skip


def test_the_hop_searches_the_named_director_without_a_call(wire):
    """The question's search reads the film's page, not the director's: hop 1 makes no call,
    takes the film's sentence as a fact and searches the director; hop 2 reads his page and
    answers (2 calls: goal setting and hop 2)."""
    model = wire(ChainScript("Toivo Särkkä was born in Helsinki. So the answer is: Helsinki."))
    ctx = wire.context(**FIRST, tools=_tools(DIRECTED, k=1))
    question = "Where was the director of film Herra Lahtinen Lähtee Lipettiin born?"
    nodes, _, state = run(build_reflective_graph(), ctx, query=question, store=wire.store)
    assert nodes == ["goal_setting", "hop", "hop", "reflect_on_answer"]
    assert state["answer"] == "Helsinki" and len(model.calls) == 2
    first, second = state["chain"]
    assert first["searched"] == "Toivo Särkkä" and first["facts"] == [DIRECTED[0][1]]
    assert DIRECTED[0][1] in model.calls[1]["prompt"]  # the fact the hop continues from
    assert "Toivo Särkkä( 20 November 1890" in model.calls[1]["prompt"]  # his page, found
    assert second["how"] == "answered"


def test_a_parents_page_is_his_though_the_sentence_gives_his_title():
    """ "Count Adolph II of the Marck" is the page titled "Adolph II of the Marck"."""
    question = "Who is the paternal grandfather of Engelbert Iii Of The Mark?"
    own = page("Engelbert III of the Mark", "He was the son of Count Adolph II of the Marck.")
    father = page("Adolph II of the Marck", "Adolph II was the son of Engelbert II of the Mark.")
    assert bridge(question, [own, father])[1] == "Engelbert II of the Mark"
