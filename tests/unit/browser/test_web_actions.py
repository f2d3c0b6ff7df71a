"""The WebArena action parser: every action, prose around it, and junk rejected with a reason."""

from __future__ import annotations

import pytest

from browser.actions import Action, ActionParseError, ActionType, parse_action
from browser.keys import normalize_key_combination


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("click [12]", Action(ActionType.CLICK, element_id="12")),
        ("hover [7]", Action(ActionType.HOVER, element_id="7")),
        ("type [3] [hello world]", Action(ActionType.TYPE, "3", "hello world", press_enter=True)),
        ("type [3] [hello] [0]", Action(ActionType.TYPE, "3", "hello", press_enter=False)),
        ("type [3] [hello] [1]", Action(ActionType.TYPE, "3", "hello", press_enter=True)),
        ("press [Control+a]", Action(ActionType.PRESS, text="Control+a")),
        ("press [Enter]", Action(ActionType.PRESS, text="Enter")),
        ("scroll [down]", Action(ActionType.SCROLL, text="down")),
        ("scroll [up]", Action(ActionType.SCROLL, text="up")),
        ("new_tab", Action(ActionType.NEW_TAB)),
        ("tab_focus [2]", Action(ActionType.TAB_FOCUS, tab_index=2)),
        ("tab_close", Action(ActionType.TAB_CLOSE)),
        ("goto [http://127.0.0.1:8000/a?b=1]", Action(ActionType.GOTO, text="http://127.0.0.1:8000/a?b=1")),
        ("go_back", Action(ActionType.GO_BACK)),
        ("go_forward", Action(ActionType.GO_FORWARD)),
        ("stop [42 apples]", Action(ActionType.STOP, text="42 apples")),
        ("noop", Action(ActionType.NOOP)),
    ],
)  # fmt: skip
def test_every_action_parses(text: str, expected: Action) -> None:
    assert parse_action(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "click [12]",
        "type [3] [a b] [0]",
        "press [Shift+Tab]",
        "tab_focus [0]",
        "goto [http://localhost/x]",
        "stop [yes]",
        "go_forward",
    ],
)
def test_canonical_form_round_trips(text: str) -> None:
    assert parse_action(text).canonical == text
    assert parse_action(parse_action(text).canonical) == parse_action(text)


@pytest.mark.parametrize(
    ("response", "canonical"),
    [
        ("Let's think step-by-step. The button is [12]. In summary, the next action I will "
         "perform is ```click [12]```", "click [12]"),
        ("I should search.\n```\ntype [5] [red shoes] [1]\n```", "type [5] [red shoes] [1]"),
        ("```text\nscroll [down]\n```", "scroll [down]"),
        ("Action: hover [9].", "hover [9]"),
        ("- go_back to the previous page", "go_back"),
        ("Type of the element is a link.\nclick [4]", "click [4]"),
        ("First ```click [1]``` was wrong, so now ```click [2]```", "click [2]"),
        ("The answer is known, so I will stop [Paris] now.", "stop [Paris]"),
        ("Click [3]", "click [3]"),
        ("close_tab", "tab_close"),
        ("scroll down", "scroll [down]"),
        ("stop", "stop []"),
        ("press [ctrl+shift+k]", "press [Control+Shift+k]"),
    ],
)  # fmt: skip
def test_tolerates_text_around_the_action(response: str, canonical: str) -> None:
    assert parse_action(response).canonical == canonical


def test_type_text_may_contain_brackets() -> None:
    action = parse_action("type [3] [see [1] and [2]] [0]")
    assert action.text == "see [1] and [2]"
    assert action.press_enter is False
    assert parse_action("type [3] [list [a]]").text == "list [a]"


@pytest.mark.parametrize(
    ("junk", "reason_part"),
    [
        ("", "empty response"),
        ("   ", "empty response"),
        ("I am not sure what to do.", "no action found"),
        ("click [Submit]", "numeric element id"),
        ("click", "numeric element id"),
        ("hover [abc]", "numeric element id"),
        ("type [x] [hello]", "numeric element id first"),
        ("type [3]", "text in brackets"),
        ("type [3] hello", "text in brackets"),
        ("press []", "key combination"),
        ("press [Foo]", "unknown key 'Foo'"),
        ("press [Hyper+a]", "unknown modifier 'Hyper'"),
        ("press [Control+]", "empty key"),
        ("scroll [left]", "up or down"),
        ("scroll", "up or down"),
        ("tab_focus [first]", "tab index"),
        ("goto []", "one url"),
        ("goto [not a url]", "one url"),
        ("stop 42", "answer in brackets"),
        ("new_tab [3]", "takes no argument"),
        ("```\nplease click the button\n```", "does not start with an action"),
        ("jump [3]", "no action found"),
    ],
)
def test_junk_is_rejected_with_a_precise_reason(junk: str, reason_part: str) -> None:
    with pytest.raises(ActionParseError) as caught:
        parse_action(junk)
    assert reason_part in caught.value.reason
    assert str(caught.value) == caught.value.reason


def test_rejection_names_the_usage_of_the_intended_action() -> None:
    with pytest.raises(ActionParseError) as caught:
        parse_action("scroll [sideways]")
    assert "usage: scroll [up] or scroll [down]" in caught.value.reason


def test_a_bare_stop_in_prose_is_not_an_action() -> None:
    with pytest.raises(ActionParseError):
        parse_action("I will not stop until the page loads")


@pytest.mark.parametrize(
    ("combo", "normalized"),
    [("ctrl+a", "Control+a"), ("Cmd+Enter", "Meta+Enter"), ("esc", "Escape"),
     ("alt+F4", "Alt+F4"), ("PageDown", "PageDown"), ("+", "+"), ("KeyA", "KeyA")],
)  # fmt: skip
def test_key_names_are_normalized_for_playwright(combo: str, normalized: str) -> None:
    assert normalize_key_combination(combo) == normalized
