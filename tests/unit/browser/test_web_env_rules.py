"""Pure rules of the web environment: loop limits, the origin allow-list, tree rendering."""

from __future__ import annotations

from typing import Any

from browser.limits import Limits, limit_reason
from browser.observation import render_tree
from browser.trajectory import TrajectoryStep, format_trajectory


def _steps(*actions: str | None, valid: bool = True) -> list[TrajectoryStep]:
    return [
        TrajectoryStep(i + 1, "obs", "http://127.0.0.1/", a or "junk", a, valid and a is not None)
        for i, a in enumerate(actions)
    ]


def test_three_identical_actions_in_a_row_stop() -> None:
    assert limit_reason(_steps("click [1]", "click [1]"), Limits()) is None
    reason = limit_reason(_steps("click [1]", "click [1]", "click [1]"), Limits())
    assert reason is not None and reason.startswith("repeated_action")


def test_a_different_action_breaks_the_run() -> None:
    assert (
        limit_reason(_steps("click [1]", "click [1]", "click [2]", "click [1]"), Limits()) is None
    )


def test_repeated_typing_counts_over_the_whole_episode() -> None:
    steps = _steps(
        "type [3] [a] [1]", "click [2]", "type [3] [a] [1]", "scroll [down]", "type [3] [a] [1]"
    )
    reason = limit_reason(steps, Limits())
    assert reason is not None and "type [3] [a] [1]" in reason


def test_three_invalid_actions_in_a_row_stop() -> None:
    steps = _steps(None, None) + [
        TrajectoryStep(3, "o", "u", "click [99]", "click [99]", False, "no element")
    ]
    assert limit_reason(steps[:2], Limits()) is None
    reason = limit_reason(steps, Limits())
    assert reason is not None and reason.startswith("invalid_actions")


def test_step_budget_stops_and_limits_are_configurable() -> None:
    steps = _steps(*[f"click [{i}]" for i in range(30)])
    assert limit_reason(steps[:29], Limits()) is None
    assert (limit_reason(steps, Limits()) or "").startswith("max_steps")
    assert (limit_reason(steps[:5], Limits(max_steps=5)) or "").startswith("max_steps")
    assert limit_reason(_steps("noop", "noop", "noop"), Limits(max_repeats=4)) is None


def _ax(
    node_id: str,
    role: str,
    name: str = "",
    children: tuple[str, ...] = (),
    props: tuple[tuple[str, Any], ...] = (),
    ignored: bool = False,
) -> dict[str, Any]:
    return {
        "nodeId": node_id,
        "ignored": ignored,
        "role": {"value": role},
        "name": {"value": name},
        "childIds": list(children),
        "backendDOMNodeId": int(node_id) + 100,
        "properties": [{"name": k, "value": {"value": v}} for k, v in props],
    }


AX_PAGE = [
    _ax("1", "RootWebArea", "Shop", ("2", "9"), (("focused", True),)),
    _ax("2", "generic", "", ("3", "5", "7")),
    _ax("3", "button", "Add to Cart", ("4",), (("focusable", True),)),
    _ax("4", "StaticText", "Add to Cart"),
    _ax("5", "checkbox", "Gift wrap", (), (("checked", "true"),)),
    _ax("7", "link", "Home", ("8",)),
    _ax("8", "StaticText", "Home page of the shop"),
    _ax("9", "none", "", ("10",), ignored=True),
    _ax("10", "textbox", "Search"),
]


def test_tree_lines_carry_dom_ids_roles_names_and_useful_properties() -> None:
    tree, nodes = render_tree(AX_PAGE)
    assert tree.splitlines() == [
        "[101] RootWebArea 'Shop' focused: True",
        "\t[103] button 'Add to Cart'",
        "\t[105] checkbox 'Gift wrap' checked: true",
        "\t[107] link 'Home'",
        "\t\t[108] StaticText 'Home page of the shop'",
        "\t[110] textbox 'Search'",
    ]
    assert nodes["103"].backend_node_id == 103 and nodes["103"].line == "button 'Add to Cart'"
    assert "102" not in nodes and "104" not in nodes  # empty generic, repeated label text


def test_nodes_without_a_dom_node_are_left_out_but_not_their_children() -> None:
    page = [dict(AX_PAGE[0], backendDOMNodeId=None), *AX_PAGE[1:]]
    tree, nodes = render_tree(page)
    assert "101" not in nodes and tree.startswith("[103] button")


def test_viewport_mode_keeps_only_visible_nodes() -> None:
    tree, nodes = render_tree(AX_PAGE, visible={103, 110})
    assert set(nodes) == {"101", "103", "110"}  # the root always stays
    assert "Gift wrap" not in tree


def test_trajectory_formats_actions_with_their_targets() -> None:
    steps = [
        TrajectoryStep(1, "o", "u", "click [3]", "click [3]", True, target="button 'Add to Cart'"),
        TrajectoryStep(2, "o", "u", "??", None, False, reason="no action found"),
    ]
    text = format_trajectory(steps)
    assert "1. click [3]  # button 'Add to Cart'" in text
    assert "2. unparsed '??'  [invalid: no action found]" in text


def test_text_repeated_from_a_nearby_sentence_is_kept() -> None:
    # MiniWoB's links are plain spans: the word must survive though the query quotes it.
    page = [
        _ax("1", "RootWebArea", "Links", ("2", "3")),
        _ax("2", "StaticText", 'Click on the link "nam".'),
        _ax("3", "StaticText", "nam"),
    ]
    tree, nodes = render_tree(page)
    assert "103" in nodes and tree.endswith("[103] StaticText 'nam'")


def test_a_nameless_field_shows_the_short_text_before_it_as_its_label() -> None:
    # MiniWoB's login form: plain texts before two unnamed boxes (no <label for>).
    page = [
        _ax("1", "RootWebArea", "Login", ("2", "3", "4", "5", "6", "7", "8")),
        _ax("2", "StaticText", "and press login."),
        _ax("3", "textbox", ""),
        _ax("4", "StaticText", "Username"),
        _ax("5", "textbox", "", (), (("focused", True),)),
        _ax("6", "StaticText", "Password"),
        _ax("7", "textbox", "Named"),
        _ax("8", "button", "Login"),
    ]
    tree, nodes = render_tree(page)
    assert tree.splitlines()[2:] == [
        "\t[103] textbox ''",  # a sentence's tail is not a label
        "\t[104] StaticText 'Username'",
        "\t[105] textbox '' label: 'Username' focused: True",
        "\t[106] StaticText 'Password'",
        "\t[107] textbox 'Named'",  # a field with its own name keeps it
        "\t[108] button 'Login'",
    ]
    assert nodes["105"].name == ""  # the accessible name itself is not made up
