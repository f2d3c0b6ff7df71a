"""check_answer: a short final answer checked against one direct reading of the evidence."""

from __future__ import annotations

from contextlib import nullcontext

import pytest

from agents.research.readings import agreed
from agents.tools.search_tool import make_search_tool
from graphs import build_reflective_graph, build_single_path_graph
from tests.unit.research_script import DOCS, Script, ShortScript, run, wire

__all__ = ["wire"]


@pytest.mark.parametrize(
    ("research", "direct", "kept"),
    [
        ("Creature Comforts", "creature comforts.", "Creature Comforts"),  # the same words
        ("Hawaii County, Hawaii", "Hawaii County", "Hawaii County"),  # the fewer words
        ("Pulitzer Prize", "the Pulitzer Prize in General Nonfiction", "Pulitzer Prize"),
        ("Virginia", "", "Virginia"),  # the direct reading said nothing
        ("Tara Strong", "Teen Titans Go!", None),  # they differ: a choice
        ("Ada", "Adam Smith", None),  # words, not letters
    ],
)  # fmt: skip
def test_agreed(research, direct, kept):
    assert agreed(research, direct) == kept


def _checked(wire, script, builder=build_reflective_graph):
    model = wire(script)
    nodes, _, state = run(builder(), wire.context(max_retries=0), store=wire.store)
    titles = [c["title"] for c in model.calls]
    direct_calls = sum("Reply with the answer only" in c["prompt"] for c in model.calls)
    return nodes, state, titles, direct_calls


def test_an_agreeing_short_answer_takes_the_fewer_words(wire):
    _, state, titles, direct_calls = _checked(
        wire, ShortScript("Hawaii County, Hawaii", "Hawaii County.")
    )
    assert direct_calls == 1 and "AnswerChoice" not in titles
    assert state["answer"] == "Hawaii County"
    assert state["answer_check"] == {
        "research": "Hawaii County, Hawaii",
        "direct": "Hawaii County",
        "chosen": "Hawaii County",
        "how": "agreed",
    }
    assert state["final_output"].startswith("Hawaii County\n\nThe research answered")
    assert state["final_output"].endswith("Sources: ada.md")


def test_differing_answers_are_chosen_between_under_a_grammar(wire):
    script = ShortScript("Tara Strong", "Teen Titans Go!", choose="Teen Titans Go!")
    _, state, titles, _ = _checked(wire, script)
    assert titles.count("AnswerChoice") == 2  # asked in both orders
    assert state["answer"] == "Teen Titans Go!"
    assert state["answer_check"]["chosen"] == "Teen Titans Go!"
    assert state["answer_check"]["how"] == "chosen"


def test_a_choice_that_follows_the_order_leaves_the_direct_reading(wire):
    script = ShortScript("Jonny Craig", "Pete Doherty", choose=None)  # always the first shown
    _, state, _, _ = _checked(wire, script)
    assert state["answer"] == "Pete Doherty"
    assert state["answer_check"]["how"] == "order-bound"


def test_the_research_answer_stands_when_the_choice_keeps_it(wire):
    script = ShortScript("Jonny Craig", "Pete Doherty", choose="Jonny Craig")
    _, state, _, _ = _checked(wire, script)
    assert state["answer"] == "Jonny Craig"
    assert state["final_output"].startswith("Jonny Craig\n\nBecause.")  # untouched


def test_the_choice_sees_both_answers_and_the_evidence(wire):
    script = ShortScript("Tara Strong", "Teen Titans Go!", choose="Tara Strong")
    model = wire(script)
    run(build_reflective_graph(), wire.context(max_retries=0), store=wire.store)
    prompt = next(c["prompt"] for c in model.calls if c["title"] == "AnswerChoice")
    assert "<answer>Teen Titans Go!</answer>\n<answer>Tara Strong</answer>" in prompt
    assert prompt.rstrip().endswith("that the evidence supports.")
    assert "<question>Who was Ada Lovelace?</question>" in prompt
    assert "<evidence>" in prompt and "1815" in prompt


def test_the_direct_reading_reads_what_the_tasks_found_beyond_the_evidence(wire):
    """One call over the same evidence: the hits the tasks' searches added (each once, not
    those the opening already shows) come after the opening, and the choice reads them too."""
    babbage = "[2] Babbage (source: babbage.md)\nCharles Babbage designed the Analytical Engine."

    def search(query, k):  # the request finds Ada; a task's search finds Babbage besides
        return DOCS["ada"] + ("" if query == "Who was Ada Lovelace?" else "\n\n" + babbage)

    tool = make_search_tool(search, name="corpus_search", description="Search.", k=3)
    model = wire(ShortScript("Tara Strong", "Teen Titans Go!", choose="Tara Strong"))
    ctx = wire.context(max_retries=0, tools=lambda ctx: nullcontext([tool]))
    _, _, state = run(build_reflective_graph(), ctx, store=wire.store)
    assert babbage.removeprefix("[2] ") in state["read"]  # the opening's Ada hit: not again
    checked = [c["prompt"] for c in model.calls if c["title"] == "AnswerChoice"]
    checked.insert(0, next(c["prompt"] for c in model.calls if _is_direct(c)))
    for prompt in checked:
        more = prompt.split("<more_evidence>\n", 1)[1].split("\n</more_evidence>", 1)[0]
        assert more == "[1] Babbage (source: babbage.md)\n" + babbage.split("\n", 1)[1]


def _is_direct(call):
    return "Reply with the answer only" in call["prompt"]


def test_other_answer_forms_and_the_single_path_graph_are_not_checked(wire):
    model = wire(Script())  # answer form: a paragraph
    run(build_reflective_graph(), wire.context(max_retries=0), store=wire.store)
    assert not any("Reply with the answer only" in c["prompt"] for c in model.calls)
    nodes, state, _, direct_calls = _checked(
        wire, ShortScript("Hawaii County, Hawaii", "Hawaii County"), build_single_path_graph
    )
    assert "check_answer" not in nodes and direct_calls == 0
    assert state["answer"] == "Hawaii County, Hawaii"


def test_a_run_stopped_by_its_budget_is_not_checked(wire):
    model = wire(ShortScript("Hawaii County, Hawaii", "Hawaii County"))
    ctx = wire.context(max_retries=0, max_seconds=0.001)
    _, _, state = run(build_reflective_graph(), ctx, store=wire.store)
    assert not any("Reply with the answer only" in c["prompt"] for c in model.calls)
    assert "answer_check" not in state or not state["answer_check"]


def test_progress_says_what_the_check_did():
    from agents.research.progress import checked

    assert checked({}) == "not checked (the answer is not a short one)"
    kept = {"research": "Jonny Craig", "direct": "Pete", "chosen": "Jonny Craig", "how": "chosen"}
    assert checked({"answer_check": kept}) == "kept 'Jonny Craig' (chosen)"
    swapped = {**kept, "chosen": "Pete", "how": "order-bound"}
    assert checked({"answer_check": swapped}).startswith("'Jonny Craig' -> 'Pete' (order-bound;")


def test_progress_says_what_each_hop_did():
    from cli.progress import _hopped

    fact, guess = "The Ride was directed by Jan Svěrák.", "Jan Svěrák is the son of X."
    searching = {"facts": [fact], "guess": guess, "searched": guess}
    line = _hopped({"chain": [searching]})
    assert line == f"[hop 1] found {fact!r}; searching {guess!r}"
    ended = {"facts": [], "guess": "", "searched": "", "answer": "Zdeněk", "how": "answered"}
    assert _hopped({"chain": [searching, ended]}) == "[hop 2] answer 'Zdeněk' (answered)"
    none = {**ended, "answer": "", "how": "not found"}
    assert _hopped({"chain": [none]}) == "[hop 1] no passage read states the answer"


@pytest.mark.parametrize("echo", ["a name", "A short phrase.", "number"])
def test_a_direct_reading_that_echoes_the_answer_form_is_no_answer(wire, echo):
    _, state, titles, direct_calls = _checked(wire, ShortScript("European culture", echo))
    assert direct_calls == 1 and "AnswerChoice" not in titles
    assert state["answer"] == "European culture"
    assert state["answer_check"]["how"] == "no direct answer"
    assert state["answer_check"]["direct"] == ""


def test_yes_or_no_is_a_direct_answer_not_an_echo(wire):
    _, state, _, _ = _checked(wire, ShortScript("Yes", "no", choose="no"))
    assert state["answer"] == "no" and state["answer_check"]["how"] == "chosen"


def test_a_multi_line_answer_is_offered_to_the_choice_on_one_line(wire):
    """llama.cpp cannot parse a grammar whose enum value holds a line break (a langgraph dev
    server running the test model died of it): options are shown, and constrained, as one
    line each; the kept answer is the original text."""
    research = "Tara Strong\n\nShe voiced   Juliet."
    script = ShortScript(research, "Teen Titans Go!", choose="Tara Strong She voiced Juliet.")
    model = wire(script)
    _, _, state = run(build_reflective_graph(), wire.context(max_retries=0), store=wire.store)
    prompt = next(c["prompt"] for c in model.calls if c["title"] == "AnswerChoice")
    assert "<answer>Tara Strong She voiced Juliet.</answer>" in prompt
    assert state["answer_check"]["chosen"] == research and state["answer_check"]["how"] == "chosen"


def test_choice_options_must_be_plain_one_line_text():
    from core.structured import choice_schema, choice_text

    for bad in ("a\nb", 'say "hi"', "back\\slash", " padded "):
        with pytest.raises(ValueError, match="plain one-line text"):
            choice_schema([bad, "c"])
    assert choice_text('  Tara\n\n "Strong"\t!  ') == "Tara 'Strong' !"
    assert len(choice_text("x " * 500)) <= 200
