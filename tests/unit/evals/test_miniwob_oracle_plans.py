"""The MiniWoB oracles' planning on hand-written observations: tree parsing, plans, refusals."""

from __future__ import annotations

import asyncio

import pytest

from evals.miniwob.oracle import PLANNERS, OracleCannotSolve, OraclePolicy, _pick, parse_tree

LOGIN = """Tab 0 (current): Login User Task
URL: http://127.0.0.1:1/miniwob/login-user.html
[6] RootWebArea 'Login User Task' focused: True
\t[41] StaticText 'Username'
\t[2] textbox ''
\t[42] StaticText 'Password'
\t[3] textbox ''
\t[25] button 'Login'"""

CHECKBOXES = """Tab 0 (current): Click Checkboxes Task
URL: http://127.0.0.1:1/miniwob/click-checkboxes.html
[2] RootWebArea 'Click Checkboxes Task' focused: True
\t[59] StaticText 'Select DKkQH, x and click Submit.'
\t[53] checkbox 'USa'
\t[57] checkbox 'DKkQH'
\t[58] checkbox 'x'
\t[21] button 'Submit'"""


def test_parse_tree_reads_ids_roles_names_and_depth() -> None:
    nodes = parse_tree(LOGIN + "\n\t\t[7] StaticText 'it\\'s \"quoted\"'")
    assert [(n.id, n.role) for n in nodes[:3]] == [
        ("6", "RootWebArea"),
        ("41", "StaticText"),
        ("2", "textbox"),
    ]
    assert nodes[-1].name == 'it\'s "quoted"' and nodes[-1].depth == 2


def test_login_plan_types_into_the_fields_in_order_then_logs_in() -> None:
    plan = PLANNERS["login-user"](
        'Enter the username "vina" and the password "US" into the text fields and press login.',
        parse_tree(LOGIN),
    )
    assert plan == ["type [2] [vina] [0]", "type [3] [US] [0]", "click [25]"]


def test_checkbox_plan_ticks_each_named_box() -> None:
    plan = PLANNERS["click-checkboxes"]("Select DKkQH, x and click Submit.", parse_tree(CHECKBOXES))
    assert plan == ["click [57]", "click [58]", "click [21]"]
    nothing = PLANNERS["click-checkboxes"](
        "Select nothing and click Submit.", parse_tree(CHECKBOXES)
    )
    assert nothing == ["click [21]"]


def test_oracles_refuse_pages_they_do_not_understand() -> None:
    with pytest.raises(OracleCannotSolve, match="no checkbox 'zzz'"):
        PLANNERS["click-checkboxes"]("Select zzz and click Submit.", parse_tree(CHECKBOXES))
    with pytest.raises(OracleCannotSolve, match="does not match"):
        PLANNERS["click-button"]("Type something.", parse_tree(LOGIN))
    with pytest.raises(ValueError, match="no oracle for 'book-flight'"):
        OraclePolicy("book-flight")


def test_task_is_picked_by_what_the_page_contains() -> None:
    tasks = ["click-option", "click-checkboxes"]
    assert _pick(tasks, "Select DKkQH, x and click Submit.", CHECKBOXES) == "click-checkboxes"


def test_focus_oracle_does_not_claim_other_pages_with_a_textbox() -> None:
    # 'Simple Math Task' is not the title-cased task name, so the pick falls back to planners.
    page = (
        "[2] RootWebArea 'Simple Math Task' focused: True\n"
        "\t[36] StaticText 'Solve the math problem and type your answer into the textbox.'\n"
        "\t[51] StaticText '3 - 6 ='\n\t[3] textbox ''\n\t[19] button 'Submit'"
    )
    u = "Solve the math problem and type your answer into the textbox. Press submit when done."
    with pytest.raises(OracleCannotSolve, match="does not match"):
        PLANNERS["focus-text-2"](u, parse_tree(page))
    assert _pick(["focus-text-2", "simple-arithmetic"], u, page) == "simple-arithmetic"
    assert PLANNERS["focus-text-2"]("Focus into the 2nd input textbox.", parse_tree(LOGIN)) == [
        "click [3]"
    ]
    assert PLANNERS["focus-text"]("Focus into the textbox.", parse_tree(LOGIN)) == ["click [2]"]


def test_policy_plays_its_plan_then_stops() -> None:
    policy = OraclePolicy("login-user")
    utterance = 'Enter the username "a" and the password "b" into the text fields and press login.'

    async def play() -> list[str]:
        history: list[object] = []
        actions = []
        for _ in range(4):
            actions.append(await policy(utterance, LOGIN, history))  # type: ignore[arg-type]
            history.append(object())
        return actions

    assert asyncio.run(play())[-2:] == ["click [25]", "stop [plan finished]"]
