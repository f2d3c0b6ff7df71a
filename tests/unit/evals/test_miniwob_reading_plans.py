"""Oracle plans for tasks whose answer is read from the page, on real observations' shapes."""

from __future__ import annotations

import pytest

from evals.miniwob.oracle import MULTI_STEP, PLANNERS, OracleCannotSolve, parse_tree


def tree(*lines: str) -> str:
    return "\n".join(
        [
            "Tab 0 (current): Task",
            "URL: http://127.0.0.1:1/x.html",
            "[2] RootWebArea 'Task' focused: True",
            *("\t" + ln for ln in lines),
        ]
    )


FORM = ["[3] textbox ''", "[19] button 'Submit'"]


def plan(task: str, utterance: str, *lines: str) -> list[str]:
    return PLANNERS[task](utterance, parse_tree(tree(*lines)))


def test_arithmetic_is_worked_out_and_typed() -> None:
    u = "Solve the math problem and type your answer into the textbox. Press submit when done."
    assert plan("simple-arithmetic", u, "[51] StaticText '3 - 6 ='", *FORM) == [
        "type [3] [-3] [0]",
        "click [19]",
    ]
    assert (
        plan("simple-arithmetic", u, "[51] StaticText '4 x 7 = '", *FORM)[0] == "type [3] [28] [0]"
    )
    with pytest.raises(OracleCannotSolve, match="no 'a op b ='"):
        plan("simple-arithmetic", u, *FORM)


def test_find_word_takes_the_nth_word_without_punctuation() -> None:
    lines = [
        "[50] StaticText 'Find the'",
        "[51] StaticText '3rd word'",
        "[52] StaticText 'in the paragraph, type that into the textbox and press \"Submit\".'",
        "[53] StaticText 'Purus pretium. Duis, facilisis massa'",
        *FORM,
    ]
    assert (
        plan("find-word", "Find the 3rd word in the paragraph", *lines)[0] == "type [3] [Duis] [0]"
    )


def test_read_table_types_the_cell_beside_the_label() -> None:
    lines = [
        "[52] cell 'Country'",
        "[53] cell 'Sierra Leone'",
        "[64] cell 'Language'",
        "[65] cell 'German'",
        "[2] textbox ''",
        "[20] button 'Submit'",
    ]
    u = "Enter the value of Language into the text field and press Submit."
    assert plan("read-table", u, *lines) == ["type [2] [German] [0]", "click [20]"]
    with pytest.raises(OracleCannotSolve, match="no table row 'Color'"):
        plan("read-table", u.replace("Language", "Color"), *lines)


def test_multi_orderings_fills_each_field_by_its_row_header() -> None:
    lines = [
        "[62] rowheader 'Director'",
        "[49] textbox ''",
        "[68] rowheader 'Year'",
        "[51] textbox ''",
        "[56] rowheader 'Genre'",
        "[47] textbox ''",
        "[95] StaticText 'Submit'",
    ]
    u = "Search for historical movies directed by Mcknight from year 1980."
    assert plan("multi-orderings", u, *lines) == [
        "type [49] [Mcknight] [0]",
        "type [51] [1980] [0]",
        "type [47] [historical] [0]",
        "click [95]",
    ]


def test_case_change_and_collapsible_sections() -> None:
    u = 'Type "JERALD" in all lower case letters in the text input and press Submit.'
    assert plan("enter-text-2", u, *FORM)[0] == "type [3] [jerald] [0]"
    lines = ["[48] tab 'Section #9'", "[50] tab 'Submit'", "\t[52] button 'Submit'"]
    assert plan("click-collapsible", "Expand the section below and click submit.", *lines) == [
        "click [48]",
        "click [52]",
    ]


def test_multi_step_families_all_have_oracles() -> None:
    assert len(MULTI_STEP) >= 10 and set(MULTI_STEP) <= set(PLANNERS)
