"""Reports with checked citations (agents/research/reply.py, `run --output FILE`): a
sentence is cited with a passage the run read that holds its names and numbers; what the model
cites itself is never taken on its word."""

from __future__ import annotations

import json

import pytest

import main
from agents.research.reply import Passage, cite, passages_read
from cli.errors import UsageError
from cli.validate import output_file
from tests.unit.research_script import DOCS, Script, wire

__all__ = ["wire"]
ADA = Passage("Ada Lovelace", "ada.md", "Ada Lovelace was born in 1815. She wrote notes.")
NOTES = Passage("Notes 7", "notes.md", "Babbage designed the Analytical Engine in 1837.")


def test_each_sentence_is_cited_with_the_passage_holding_what_it_states():
    text = (
        "Ada Lovelace was born in 1815. Babbage designed the Analytical Engine in 1837! "
        "She wrote about it.\n\nSources: ada.md"
    )
    body, citations = cite(text, [ADA, NOTES])
    assert body == (
        "Ada Lovelace was born in 1815 [1]. Babbage designed the Analytical Engine in 1837 [2]! "
        "She wrote about it."  # it names nothing: nothing to cite
    )
    assert [(c["n"], c["source"]) for c in citations] == [(1, "ada.md"), (2, "notes.md")]
    assert citations[0]["sentences"] == ["Ada Lovelace was born in 1815."]


def test_a_sentence_no_passage_holds_is_not_cited():
    body, citations = cite("Lord Byron was her father. Ada Lovelace was born in 1816.", [ADA])
    assert body == "Lord Byron was her father. Ada Lovelace was born in 1816."
    assert citations == []


def test_the_passages_read_are_the_evidence_then_the_tasks_hits():
    state = {
        "evidence": f"<evidence>\n{DOCS['ada']}\n</evidence>",
        "read": ["Notes 7 (source: notes.md)\nx"],
    }
    assert [(p.title, p.source) for p in passages_read(state)] == [
        ("Ada Lovelace", "ada.md"),
        ("Notes 7", "notes.md"),
    ]


class CitesUnread(Script):
    """The aggregator states one fact the run read and one it did not, citing a file the run
    never opened."""

    def __call__(self, prompt, title, tools, messages):
        if title == "FinalAnswer":
            return {
                "answer": "Ada Lovelace was born in 1815. Lord Byron wrote the Analytical Engine.",
                "sources": ["byron.md"],
            }
        return super().__call__(prompt, title, tools, messages)


def test_run_output_writes_the_report_and_json_has_its_citations(wire, capsys, tmp_path):  # noqa: F811
    wire(CitesUnread())
    report = tmp_path / "report.md"
    args = ["--home", str(tmp_path / "home"), "run", "Who was Ada Lovelace?", "--json"]
    code = main.main(
        [*args, "--no-browser", "--output", str(report)], models=wire.models, tools=wire.tools
    )
    out, err = capsys.readouterr()
    assert code == 0, err
    text = report.read_text()
    assert text.startswith("# Who was Ada Lovelace?\n")
    assert "Ada Lovelace was born in 1815 [1]." in text
    assert "Lord Byron wrote the Analytical Engine." in text  # uncited: nothing read holds it
    assert "byron.md" not in text and "1. Ada Lovelace (ada.md)" in text
    citations = json.loads(out)["citations"]
    assert [c["source"] for c in citations] == ["ada.md"]
    assert "report: " in err


@pytest.mark.parametrize("where", ["folder", "missing"])
def test_an_output_path_that_cannot_be_written_is_refused_before_the_run(tmp_path, where):
    path = tmp_path if where == "folder" else tmp_path / "no" / "report.md"
    with pytest.raises(UsageError, match="--output"):
        output_file("--output", str(path))
    assert output_file("--output", None) is None
    assert output_file("--output", str(tmp_path / "r.md")) == (tmp_path / "r.md").resolve()


@pytest.mark.parametrize(
    ("hit", "expected"),
    [
        ("Ada Lovelace (source: ada.md)\nborn 1815", ("Ada Lovelace", "ada.md")),
        ("Analytical Engine (https://example.org/engine)\ntext", ("Analytical Engine", "https://example.org/engine")),
        ("A page with no source\ntext", ("A page with no source", "")),
    ],
)  # fmt: skip
def test_a_hits_title_and_source_come_from_its_first_line(hit, expected):
    from agents.research.sources import title_and_source

    assert title_and_source(hit) == expected


HARLOW = "The Harlow Bridge opened in 1931."


@pytest.mark.parametrize(
    "text",
    [
        "It is false that the Harlow Bridge opened in 1931.",
        "The Harlow Bridge never opened in 1931, whatever the plaque says.",
        "Plans of 1931 named the Harlow Bridge. The Harlow Bridge opened in 1934.",
    ],
)
def test_a_passage_that_says_otherwise_is_no_citation(text):
    """A passage holding a sentence's words but denying it, or giving the same thing another
    number, is not its citation; a passage that states it is."""
    against = Passage("Harlow Bridge", "against.md", text)
    body, citations = cite(HARLOW, [against])
    assert (body, citations) == (HARLOW, [])
    holds = Passage("Harlow Bridge", "holds.md", f"{HARLOW} It was rebuilt in 1962.")
    body, citations = cite(HARLOW, [against, holds])
    assert [c["source"] for c in citations] == ["holds.md"] and body.endswith("1931 [1].")


def test_a_denial_is_cited_with_the_passage_that_denies():
    denial = "The Harlow Bridge did not open in 1931."
    passage = Passage("Harlow Bridge", "myth.md", "The Harlow Bridge did not open in 1931.")
    assert [c["source"] for c in cite(denial, [passage])[1]] == ["myth.md"]
    assert cite(denial, [Passage("Harlow Bridge", "h.md", HARLOW)])[1] == []
