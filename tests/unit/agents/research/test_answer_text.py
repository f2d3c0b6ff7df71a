"""Answer hygiene: repeated sentences, echoed prompt text, JSON debris and missing sources."""

from __future__ import annotations

import pytest

from agents.research.aggregate_results import ECHOED_PROMPTS
from agents.research.answer_text import (
    cited_sources,
    clean_answer,
    short_answer_text,
    strip_debris,
    with_sources,
)
from evals.hotpotqa.short_answer import short_answer
from graphs import build_reflective_graph
from tests.unit.fakes import ScriptedChatModel
from tests.unit.research_script import Script, run, wire

__all__ = ["wire"]

ANSWER = "Nick Park created Creature Comforts (source: Nick_Park.md)."
REPETITIVE = "\n\n".join(
    [
        f"{ANSWER} It matched zoo animals with people talking about their homes.",
        f"{ANSWER} It matched zoo animals with people talking about their homes.",
        "nick park created creature comforts (source: Nick_Park.md)!",
    ]
)


def test_repeated_sentences_and_paragraphs_go_once():
    out = clean_answer(REPETITIVE, prompts=ECHOED_PROMPTS)
    assert out.count("Creature Comforts") == 1 and out.count("zoo animals") == 1


def test_lines_echoing_the_prompts_are_removed():
    leaky = (
        f"{ANSWER}\nAnswer the request from the task results and the evidence; use only facts "
        "found there.\nYour previous attempt was judged not good enough: fix what the "
        "reflection points out."
    )
    assert clean_answer(leaky, prompts=ECHOED_PROMPTS) == ANSWER


def test_answers_that_share_words_with_the_prompt_stay():
    answer = "The answer to the request: Creature Comforts, by Nick Park (source: Nick_Park.md)."
    assert clean_answer(answer, prompts=ECHOED_PROMPTS) == answer


def test_a_leaky_embedded_answer_keeps_only_its_answer():
    # the shape of a real run's output: the answer shape echoed, escaped prompt markup, a
    # reflection's wording, and the answer repeated until the budget cut it
    shape = "The goal is to create a section of the final answer that has 2-4 short lines."
    raw = (
        f"{shape}\n{ANSWER}\n"
        '&lt;section text="Your Workflow" /*title */\n&#10783659_A+B++{\n'
        f"The task must be done again.\n\n{ANSWER}\nThe goal is to create a section of"
    )
    assert clean_answer(raw, prompts=(*ECHOED_PROMPTS, shape)) == ANSWER


def test_an_answer_of_template_slots_is_empty():
    assert clean_answer("{ description }\n{{answer}}") == ""
    assert clean_answer("Nick Park {description} made it.") == "Nick Park made it."


def test_a_truncated_repeat_goes_and_numbers_stay():
    raw = "Ada Lovelace was born in London in 1815.\n1815\nAda Lovelace was born in"
    assert clean_answer(raw) == "Ada Lovelace was born in London in 1815.\n1815"


@pytest.mark.parametrize(
    "raw",
    [
        "); Creature Comforts",
        '} Creature Comforts"}',
        '{"answer": "Creature Comforts"}',
        '{"answer": "Creature Comforts',
        "Creature Comforts;",
        ',"Creature Comforts"',
        "}\nCreature Comforts",  # a line of debris, then the answer
    ],
)
def test_json_debris_is_stripped_from_short_answers(raw):
    assert short_answer_text(raw) == "Creature Comforts"


def test_balanced_brackets_are_kept():
    assert strip_debris("Nick Park (source: Nick_Park.md)") == "Nick Park (source: Nick_Park.md)"
    assert strip_debris("Wallace and Gromit [1]") == "Wallace and Gromit [1]"


def test_sources_the_results_cite_are_named():
    results = ["Nick Park (source: Nick_Park.md) made it.", "See Creature_Comforts.md.", None]
    assert cited_sources(results) == ["Nick_Park.md", "Creature_Comforts.md"]
    answer = with_sources("Creature Comforts, by Nick Park (Nick_Park.md).", cited_sources(results))
    assert answer.endswith("\n\nSources: Creature_Comforts.md")
    assert (
        with_sources("Nick_Park.md and creature_comforts.md", cited_sources(results)).count(
            "Sources:"
        )
        == 0
    )


class Repetitive(Script):
    """Writes a final answer that repeats itself, echoes the prompt, and cites a source the
    run never read."""

    def __call__(self, prompt, title, tools, messages):
        if title == "FinalAnswer":
            line = "The mathematician was born in 1815. Use only facts found there."
            answer = f"{line}\n\n{line}\n\n{line}\n}}"
            return {"answer": answer, "sources": ["made-up.md"]}
        return super().__call__(prompt, title, tools, messages)


def test_aggregate_results_cleans_the_final_answer(wire):
    wire(Repetitive())
    _, _, state = run(build_reflective_graph(), wire.context(max_retries=0), store=wire.store)
    assert state["answer"] == "The mathematician was born in 1815."
    # the made-up source is dropped: the sources the run read stand in
    assert (
        state["final_output"] == "The mathematician was born in 1815.\n\nSources: ada.md, notes.md"
    )


class Echoing(Script):
    """A tiny model at its worst: the final answer and the task's answer from the evidence
    only restate their instructions."""

    def __call__(self, prompt, title, tools, messages):
        if title == "FinalAnswer":
            return {"answer": "Answer the request from the task results and the evidence."}
        if not title and not tools and "Answer the task using only" in prompt:
            return "Answer the task using only the evidence and search results above."
        return super().__call__(prompt, title, tools, messages)


def test_a_final_answer_cleaned_to_nothing_falls_back_to_the_results_as_written(wire):
    wire(Echoing(plan=[]))  # the request is the one task
    ctx = wire.context(max_retries=0, max_tool_steps=0)  # as on SmolLM2
    _, _, state = run(build_reflective_graph(), ctx, store=wire.store)
    assert state["results"] == ["Answer the task using only the evidence and search results above."]
    assert state["answer"] == state["results"][0]  # not blank: the run's own words


def test_hotpotqa_short_answer_drops_debris():
    model = ScriptedChatModel(responder=lambda *a: {"answer": '"); Nick Park'}, calls=[])
    assert short_answer(model, "Who created Wallace and Gromit?", "text") == "Nick Park"


def test_prompt_section_tags_copied_back_are_removed():
    """A small model copies the prompt's section tags into its answer; they are no answer."""
    assert clean_answer("<past_reflections>") == ""
    assert clean_answer("The answer to the request is:\n<ref_0>") == "The answer to the request is"
    text = "<ref_0>\n\nNick Park created them.\n</ref_2>\n\nSee nick.md.\n</ref_3>"
    assert clean_answer(text) == "Nick Park created them.\n\nSee nick.md."
    assert clean_answer("Use a < b and b > c.") == "Use a < b and b > c."
    # markup made up in the prompt's likeness (a small model imitates the tags it reads)
    made_up = '<task name="create-animated" /&gt;\n&lt\'1983: Nick Park made it.<br />'
    assert clean_answer(made_up) == "1983: Nick Park made it."
    for kept in (
        "if a<b and c>d then e.",
        "Tom said <hello there> loudly.",
        "Speed <y (metres) -> grows.",
    ):
        assert clean_answer(kept) == kept
    assert clean_answer("Sales &lt; 5 units and &gt; 2.") == "Sales < 5 units and > 2."
