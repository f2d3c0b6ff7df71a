"""A short answer reasoned out along its chain: each hop reads the best passages the run has read
and continues the reasoning; its sentences the passages hold are facts, the first naming what
was not read is searched for the next hop (a query already searched, or one that finds nothing
new, gives way to the names alone), and "So the answer is: X" ends the chain when the passages
hold X. After `max_hops` hops one last reading answers; a made-up answer never stands."""

from __future__ import annotations

from agents.research.hop import Reasoning, focused, next_queries, split_reasoning
from graphs import build_reflective_graph
from prompts.research import SHORT_FORM
from tests.unit.research_script import Script, run, wire

__all__ = ["wire"]
LAST = "Reply with the answer only"  # the last reading's prompt
HOP = "Continue the reasoning as the examples do"  # a hop's prompt
FIRST = {"max_retries": 0, "answer_first": True}


class ChainScript(Script):
    """Goal setting asks for a short answer; hop k replies `replies[k]` (the last one
    repeats); the last reading says `last`."""

    def __init__(self, *replies: str, last: str = "", **kwargs) -> None:
        super().__init__(**kwargs)
        self.replies, self.last, self.hops = list(replies), last, 0

    def __call__(self, prompt, title, tools, messages):
        if title == "GoalSetting":
            return {"goal": "Name her birth year", "answer_form": SHORT_FORM, "criteria": []}
        if HOP in prompt:
            reply = self.replies[min(self.hops, len(self.replies) - 1)]
            self.hops += 1
            return reply
        if LAST in prompt:
            return self.last
        return super().__call__(prompt, title, tools, messages)


def test_a_question_its_first_search_settles_ends_after_one_hop(wire):
    model = wire(ChainScript("Ada Lovelace was born in 1815. So the answer is: 1815."))
    nodes, _, state = run(build_reflective_graph(), wire.context(**FIRST), store=wire.store)
    assert nodes == ["goal_setting", "hop", "reflect_on_answer"] and len(model.calls) == 2
    assert state["answer"] == "1815" and state["final_output"] == "1815\n\nSources: ada.md"
    assert [c["source"] for c in state["citations"]] == ["ada.md"]
    (link,) = state["chain"]
    assert link["facts"] == ["Ada Lovelace was born in 1815."] and link["how"] == "answered"
    assert link["searched"] == "" and not state["tasks"]
    goal_prompt, hop_prompt = model.calls[0]["prompt"], model.calls[1]["prompt"]
    assert "So the answer is: Vienna." in hop_prompt  # an example
    # it opens as goal setting's prompt does: a local model reads that part from its cache
    opening = goal_prompt[: goal_prompt.index("</evidence>")]
    assert hop_prompt.startswith(opening) and "(source: ada.md)" in opening


def test_the_first_sentence_naming_what_was_not_read_is_searched_for_the_next_hop(wire):
    """Hop 1's second sentence names a publisher no passage holds: that sentence is searched
    (not the request), and hop 2 reads what it found beside the fact hop 1 found: 3 calls."""
    fact, guess = "Ada Lovelace wrote notes.", "The notes were printed by Taylor in London."
    model = wire(ChainScript(f"{fact} {guess}", "So the answer is: 1815."))
    nodes, _, state = run(build_reflective_graph(), wire.context(**FIRST), store=wire.store)
    assert nodes == ["goal_setting", "hop", "hop", "reflect_on_answer"]
    assert len(model.calls) == 3 and state["answer"] == "1815"
    first, second = state["chain"]
    assert first["facts"] == [fact] and first["guess"] == guess == first["searched"]
    assert second["how"] == "answered"
    first_hop, second_hop = model.calls[1]["prompt"], model.calls[2]["prompt"]
    assert "(source: notes.md)" in second_hop  # what the search found
    assert f"Reasoning so far: {fact}\n" in second_hop  # and the facts so far
    shared = first_hop[: first_hop.index("Question:")]
    assert second_hop.startswith(shared)  # grown at its end only: the rest read from cache
    assert state["final_output"] == "1815\n\nSources: ada.md, notes.md"


def test_an_answer_no_passage_holds_never_stands(wire):
    """ "Lord Byron" is in no passage: the stated answer does not end the chain, the last
    reading saying it too does not stand, and the run says nothing read states the answer."""
    model = wire(ChainScript("So the answer is: Lord Byron.", last="Lord Byron"))
    nodes, _, state = run(
        build_reflective_graph(), wire.context(**FIRST, max_hops=2), store=wire.store
    )
    assert nodes == ["goal_setting", "hop", "hop", "reflect_on_answer"] and not state["tasks"]
    assert state["chain"][0]["searched"] == "So the answer is: Lord Byron."
    assert state["answer"] == "" and "No passage read states the answer" in state["final_output"]
    assert state["chain"][-1]["how"] == "not found" and LAST in model.calls[-1]["prompt"]


def test_a_search_that_echoes_its_query_is_not_read_as_evidence(monkeypatch):
    """A corpus that holds nothing on the question answers every search with a line that
    repeats the query: a query holding the model's guess ("Tim Burton") must not make that
    guess stand as read."""
    from agents.tools.corpus import format_hits
    from tests.unit import research_script

    searched = []

    def nothing(query, k):
        searched.append(query)
        return format_hits([], query)  # "No passage in the corpus matches '...'"

    monkeypatch.setattr(research_script, "found_for", nothing)
    wire_ = research_script.Wiring()
    model = wire_(ChainScript("Wallace was made by Tim Burton. So the answer is: Tim Burton."))
    model.responder.last = "Tim Burton"
    _, _, state = run(build_reflective_graph(), wire_.context(**FIRST), store=wire_.store)
    assert state["answer"] == "" and "Tim Burton" not in state["final_output"]
    assert "Tim Burton" in searched  # searched, and echoed back


def _svěrák_tools(ctx):
    from contextlib import contextmanager

    from agents.tools.corpus import CorpusIndex, make_corpus_tool

    index = CorpusIndex.from_passages(
        [
            ("The Ride (1994 film)", "The Ride is a 1994 Czech film directed by Jan Svěrák."),
            ("Jan Svěrák", "Jan Svěrák is a Czech filmmaker, the son of Zdeněk Svěrák."),
            ("Kolya", "Kolya is a film by Jan Svěrák."),
        ]
    )

    @contextmanager
    def tools(_):
        yield [make_corpus_tool(index, k=1)]

    return tools


RIDE = "Who is the father of the director of The Ride (1994)?"


def test_an_answer_naming_a_page_not_read_yet_is_looked_up_before_it_stands(wire):
    """The first hop answers with the bridge (the director): his own page exists and was not
    read, so the next hop reads it and answers again; the answer then stands."""
    bridge = "The Ride was directed by Jan Svěrák. So the answer is: Jan Svěrák."
    model = wire(ChainScript(bridge, "So the answer is: Zdeněk Svěrák."))
    ctx = wire.context(**FIRST, tools=_svěrák_tools(None))
    nodes, _, state = run(build_reflective_graph(), ctx, query=RIDE, store=wire.store)
    assert nodes == ["goal_setting", "hop", "hop", "reflect_on_answer"]
    assert state["answer"] == "Zdeněk Svěrák" and len(model.calls) == 3
    assert state["chain"][0]["searched"] == "Jan Svěrák"
    assert "Jan Svěrák is a Czech filmmaker" in model.calls[2]["prompt"]


def test_an_answer_whose_page_is_read_or_absent_stands_at_once(wire):
    """Named in the request, or with no page of its own: no lookup hop (2 calls)."""
    for reply in ("So the answer is: The Ride.", "So the answer is: Czech."):
        model = wire(ChainScript(reply))
        ctx = wire.context(**FIRST, tools=_svěrák_tools(None))
        _, _, state = run(build_reflective_graph(), ctx, query=RIDE, store=wire.store)
        assert len(model.calls) == 2 and state["chain"][-1]["how"] == "answered", reply


def test_a_page_is_a_names_own_whatever_its_kind_or_article():
    from agents.research.hop import _titled

    assert _titled("the Nelson River", "Nelson River") and _titled("Paris", "Paris (film)")
    assert _titled("Jan Svěrák", "Jan Sverak") and not _titled("Paris", "Paris, Texas")


def test_a_long_stated_answer_is_read_again_in_the_short_form(wire):
    model = wire(
        ChainScript(
            "So the answer is: Ada Lovelace was born in the year 1815 and wrote notes.", last="1815"
        )
    )
    _, _, state = run(build_reflective_graph(), wire.context(**FIRST), store=wire.store)
    assert len(model.calls) == 3 and state["answer"] == "1815"
    assert state["chain"][-1]["how"] == "last reading"


def test_the_chain_is_bounded_by_max_hops_then_read_once_more(wire):
    """Every hop guesses a new link its search finds new notes for: after max_hops hops the
    last reading answers from the best passages (goal + 3 hops + 1 reading = 5 calls)."""
    replies = [f"Ada Lovelace met Person{n} in Town{n}." for n in range(5)]
    model = wire(ChainScript(*replies, last="1815"))
    nodes, _, state = run(
        build_reflective_graph(), wire.context(**FIRST, max_hops=3), store=wire.store
    )
    assert nodes.count("hop") == 3 and len(model.calls) == 5
    assert state["answer"] == "1815" and state["chain"][-1]["how"] == "last reading"


def test_a_search_that_finds_nothing_new_is_retried_with_the_names_alone(monkeypatch):
    """The guessed link's search finds only Ada's passage (read): the new names in it are
    searched instead; when they find nothing new either, the last reading answers."""
    from tests.unit import research_script

    searched = []

    def found_for(query, k):
        searched.append(query)
        return research_script.DOCS["ada"]  # nothing but what the run has read

    monkeypatch.setattr(research_script, "found_for", found_for)
    wire_ = research_script.Wiring()  # its tool searches with the stand-in
    wire_(ChainScript("Ada Lovelace met Charles Babbage in 1833.", last="1815"))
    nodes, _, state = run(build_reflective_graph(), wire_.context(**FIRST), store=wire_.store)
    assert searched[1:] == ["Ada Lovelace met Charles Babbage in 1833.", "Charles Babbage 1833"]
    assert nodes == ["goal_setting", "hop", "reflect_on_answer"] and state["answer"] == "1815"


def test_a_reply_is_taken_sentence_by_sentence():
    read = ["[1] Ada (source: ada.md)\nAda Lovelace was born in 1815."]
    said = split_reasoning(
        "Reasoning: Ada Lovelace was born in 1815. She met Babbage in 1833. "
        "So the answer is: 1815.",
        "When was Ada born?",
        read,
        [],
    )
    assert said.facts == ["Ada Lovelace was born in 1815."] and said.answer is None
    assert said.guess == "She met Babbage in 1833."
    known = ["Ada Lovelace was born in 1815."]
    again = split_reasoning(
        "Ada Lovelace was born in 1815. So the answer is: 1815.", "Q?", read, known
    )
    assert again.facts == [] and again.answer == "1815"  # a fact already found is not new


def test_what_to_search_next():
    said = Reasoning(facts=["The Ride was directed by Jan Svěrák."])
    assert next_queries(said, "Who is the father of the director of The Ride?") == [
        "The Ride was directed by Jan Svěrák.",
        "Jan Svěrák",
    ]
    assert next_queries(Reasoning(), "Q?") == []


def test_a_reading_sees_the_passages_that_best_match_the_chain_in_the_order_read():
    passages = [f"P{i} filler text" for i in range(8)] + ["Jan Svěrák was born in 1965."]
    shown = focused(passages, "Where was Jan Svěrák born?", 3)
    assert len(shown) == 3 and shown[-1] == passages[-1]
    assert focused(passages[:2], "anything", 3) == passages[:2]


def test_a_bare_yes_or_no_answers_only_a_yes_or_no_question(wire):
    """The hop says "no" and so does the last reading, to a question asking when: neither
    stands, and the run says nothing read states the answer."""
    model = wire(ChainScript("So the answer is: no.", last="No"))
    nodes, _, state = run(
        build_reflective_graph(), wire.context(**FIRST, max_hops=2), store=wire.store
    )
    assert state["answer"] == "" and state["chain"][-1]["how"] == "not found"
    assert LAST in model.calls[-1]["prompt"]
