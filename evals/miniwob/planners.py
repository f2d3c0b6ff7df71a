"""MiniWoB++ oracle plans, part 1: the page's tree as nodes, and plans for tasks whose
utterance names everything to do (buttons, links, text to type, boxes to tick)."""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import dataclass

_LINE = re.compile(r"^(\t*)\[(\d+)\] (\S+) ('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")")


@dataclass(frozen=True)
class TreeNode:
    id: str
    role: str
    name: str
    depth: int


class OracleCannotSolve(RuntimeError):
    """The utterance or page did not look like the task the oracle knows."""


def parse_tree(observation: str) -> list[TreeNode]:
    """The `[id] role 'name'` lines of an observation, in page order."""
    nodes = []
    for line in observation.splitlines():
        found = _LINE.match(line)
        if found:
            tabs, node_id, role, name = found.groups()
            nodes.append(TreeNode(node_id, role, ast.literal_eval(name), len(tabs)))
    return nodes


def find_nodes(nodes: list[TreeNode], role: str, name: str | None = None) -> list[TreeNode]:
    return [n for n in nodes if n.role == role and (name is None or n.name == name)]


def node_id(nodes: list[TreeNode], role: str, name: str | None = None, nth: int = 0) -> str:
    found = find_nodes(nodes, role, name)
    if len(found) <= nth:
        raise OracleCannotSolve(f"no {role} {name or ''!r} (#{nth + 1}) on the page")
    return found[nth].id


def match(pattern: str, utterance: str) -> re.Match[str]:
    found = re.search(pattern, utterance)
    if not found:
        raise OracleCannotSolve(f"utterance {utterance!r} does not match {pattern!r}")
    return found


def click_button(u: str, nodes: list[TreeNode]) -> list[str]:
    label = match(r'Click on the "(.+)" button', u).group(1)
    return [f"click [{node_id(nodes, 'button', label)}]"]


def click_link(u: str, nodes: list[TreeNode]) -> list[str]:
    # MiniWoB's links are <span class="alink">: the tree shows them as their text.
    word = match(r'Click on the link "(.+)"', u).group(1)
    found = [n for n in nodes if n.role in ("link", "StaticText") and n.name == word]
    if not found:
        raise OracleCannotSolve(f"no link {word!r} on the page")
    return [f"click [{found[0].id}]"]


def enter_text(u: str, nodes: list[TreeNode]) -> list[str]:
    text = match(r'Enter "(.*)" into the text field', u).group(1)
    return [
        f"type [{node_id(nodes, 'textbox')}] [{text}] [0]",
        f"click [{node_id(nodes, 'button')}]",
    ]


_ORDINALS = {"1st": 0, "2nd": 1, "3rd": 2}


def focus_text(u: str, nodes: list[TreeNode]) -> list[str]:
    # Match the utterance first: a multi-task run picks the first planner that accepts a page.
    match(r"^Focus into the", u)
    nth = re.search(r"the (1st|2nd|3rd) input", u)
    return [f"click [{node_id(nodes, 'textbox', nth=_ORDINALS[nth.group(1)] if nth else 0)}]"]


def click_checkboxes(u: str, nodes: list[TreeNode]) -> list[str]:
    wanted = match(r"^Select (.*) and click Submit", u).group(1)
    names = [] if wanted == "nothing" else wanted.split(", ")
    clicks = [f"click [{node_id(nodes, 'checkbox', name)}]" for name in names]
    return [*clicks, f"click [{node_id(nodes, 'button', 'Submit')}]"]


def click_option(u: str, nodes: list[TreeNode]) -> list[str]:
    name = match(r"^Select (.*) and click Submit", u).group(1)
    return [
        f"click [{node_id(nodes, 'radio', name)}]",
        f"click [{node_id(nodes, 'button', 'Submit')}]",
    ]


def click_dialog(u: str, nodes: list[TreeNode]) -> list[str]:
    match(r'clicking the "x"', u)
    return [f"click [{node_id(nodes, 'button', 'Close')}]"]


def login_user(u: str, nodes: list[TreeNode]) -> list[str]:
    found = match(r'username "(.*)" and the password "(.*)"', u)
    user, password = found.groups()
    # The fields have no accessible names; the labels before them say Username, Password.
    return [
        f"type [{node_id(nodes, 'textbox', nth=0)}] [{user}] [0]",
        f"type [{node_id(nodes, 'textbox', nth=1)}] [{password}] [0]",
        f"click [{node_id(nodes, 'button', 'Login')}]",
    ]


def enter_password(u: str, nodes: list[TreeNode]) -> list[str]:
    password = match(r'Enter the password "(.*)" into both', u).group(1)
    return [
        f"type [{node_id(nodes, 'textbox', nth=0)}] [{password}] [0]",
        f"type [{node_id(nodes, 'textbox', nth=1)}] [{password}] [0]",
        f"click [{node_id(nodes, 'button', 'Submit')}]",
    ]


def click_tab(u: str, nodes: list[TreeNode]) -> list[str]:
    tab = match(r"Click on (Tab #\d)", u).group(1)
    return [f"click [{node_id(nodes, 'link', tab)}]"]


def choose_list(u: str, nodes: list[TreeNode]) -> list[str]:
    item = match(r"^Select (.*) from the list", u).group(1)
    return [
        f"type [{node_id(nodes, 'combobox')}] [{item}] [0]",
        f"click [{node_id(nodes, 'button')}]",
    ]


def click_button_sequence(u: str, nodes: list[TreeNode]) -> list[str]:
    first, second = match(r"Click button (\w+), then click button (\w+)", u).groups()
    return [
        f"click [{node_id(nodes, 'button', first)}]",
        f"click [{node_id(nodes, 'button', second)}]",
    ]


Planner = Callable[[str, list[TreeNode]], list[str]]
