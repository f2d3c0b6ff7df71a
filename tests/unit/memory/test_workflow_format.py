"""AWM text format: round-trips on AWM's own workflow files, and hand-edit tolerance."""

from __future__ import annotations

import pytest

from memory.workflows.format import (
    extract_workflow_section,
    format_workflows,
    looks_like_action,
    parse_workflows,
)
from tests.conftest import DATA

AWM = DATA / "awm"
FILES = [
    "mind2web_prompt_one_shot_action.txt",
    "mind2web_prompt_one_shot_abstract.txt",
    "webarena_prompt_one_shot.txt",
]


def _section(name: str) -> tuple[str, int]:
    return extract_workflow_section((AWM / name).read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", FILES)
def test_round_trip_on_awm_files(name: str) -> None:
    text, first = _section(name)
    parsed = parse_workflows(text, where=name, first_line=first)
    assert parsed.problems == []
    again = parse_workflows(format_workflows(parsed.workflows))
    assert [(w.name, w.description, w.steps) for w in again.workflows] == [
        (w.name, w.description, w.steps) for w in parsed.workflows
    ]
    assert again.problems == []


def test_mind2web_action_file_is_reproduced_byte_for_byte() -> None:
    text, _ = _section("mind2web_prompt_one_shot_action.txt")
    parsed = parse_workflows(text)
    assert [w.name for w in parsed.workflows] == [
        "enter_flight_locations",
        "select_oneway_trip",
        "select_date_for_travel",
        "find_trip",
    ]
    assert format_workflows(parsed.workflows) == text.strip("\n")
    first = parsed.workflows[0]
    assert first.steps[1] == "[textbox]  Origin City or Airport -> TYPE: {your-origin-city}"
    assert first.placeholders == ["your-origin-city", "best-popup-option", "your-destination-city"]


def test_webarena_workflows_keep_think_action_blocks_as_steps() -> None:
    text, _ = _section("webarena_prompt_one_shot.txt")
    ws = parse_workflows(text).workflows
    assert [w.name for w in ws] == [
        "find_all_orders",
        "obtain_order_information_such_as_date_or_order_number",
        "browse_products_in_a_specific_sub_category",
    ]
    assert ws[0].description == "Find all orders"
    assert [len(w.steps) for w in ws] == [2, 1, 3]
    assert ws[0].steps[0].startswith("<think>") and ws[0].steps[0].endswith("</action>")
    assert all(looks_like_action(s) for w in ws for s in w.steps)


def test_malformed_blocks_are_skipped_with_their_line() -> None:
    text = "\n".join(
        [
            "## good_one",  # 1
            "Does a thing.",  # 2
            "[button]  Go -> CLICK",  # 3
            "[link]  Next -> CLICK",  # 4
            "",  # 5
            "## no_description",  # 6
            "[button]  Go -> CLICK",  # 7
            "",  # 8
            "## no_steps",  # 9
            "Only a description.",  # 10
            "",  # 11
            "## Query 1: an example, not a workflow",  # 12
            "Actions:",  # 13
            "## unclosed",  # 14
            "Thinks.",  # 15
            "<think>",  # 16
            "hmm",  # 17
        ]
    )
    result = parse_workflows(text, where="site.txt")
    assert [w.name for w in result.workflows] == ["good_one"]
    assert any(p.startswith("site.txt:7:") and "description" in p for p in result.problems)
    assert any(p.startswith("site.txt:9:") and "no steps" in p for p in result.problems)
    assert any(p.startswith("site.txt:12:") for p in result.problems)
    assert any(p.startswith("site.txt:14:") and "</action>" in p for p in result.problems)
    assert len(result.problems) == 4


def test_html_comments_and_stray_text() -> None:
    text = "<!-- edited by hand\nstill a comment -->\nstray line\n## a\nd\nclick('1')\nclick('2')\n"
    result = parse_workflows(text, where="f")
    assert [w.name for w in result.workflows] == ["a"]
    assert result.problems == ["f:3: text outside any workflow block, ignored"]
