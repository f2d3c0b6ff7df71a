"""MiniWoB++ oracle plans, part 2: multi-step tasks whose answer is read or worked out from the
page (a table cell, the n-th word, a sum, a form's field labels) before it is typed."""

from __future__ import annotations

import operator
import re

from evals.miniwob.planners import OracleCannotSolve, TreeNode, find_nodes, match, node_id


def _type_and_submit(nodes: list[TreeNode], text: str) -> list[str]:
    return [
        f"type [{node_id(nodes, 'textbox')}] [{text}] [0]",
        f"click [{node_id(nodes, 'button', 'Submit')}]",
    ]


def enter_text_2(u: str, nodes: list[TreeNode]) -> list[str]:
    word, case = match(r'Type "(.*)" in all (lower|upper) case letters', u).groups()
    return _type_and_submit(nodes, word.lower() if case == "lower" else word.upper())


def click_collapsible(u: str, nodes: list[TreeNode]) -> list[str]:
    match(r"Expand the section", u)
    sections = [n for n in nodes if n.role == "tab" and n.name.startswith("Section")]
    if not sections:
        raise OracleCannotSolve("no collapsed section on the page")
    return [f"click [{sections[0].id}]", f"click [{node_id(nodes, 'button', 'Submit')}]"]


_OPS = {"+": operator.add, "-": operator.sub, "x": operator.mul}


def simple_arithmetic(u: str, nodes: list[TreeNode]) -> list[str]:
    match(r"Solve the math problem", u)
    for n in find_nodes(nodes, "StaticText"):
        found = re.fullmatch(r"\s*(-?\d+) ([+x-]) (-?\d+) =\s*", n.name)
        if found:
            a, op, b = found.groups()
            return _type_and_submit(nodes, str(_OPS[op](int(a), int(b))))
    raise OracleCannotSolve("no 'a op b =' problem on the page")


def find_word(u: str, nodes: list[TreeNode]) -> list[str]:
    texts = [n.name for n in find_nodes(nodes, "StaticText")]
    ordinal = next((re.match(r"(\d+)(?:st|nd|rd|th) word", t) for t in texts if "word" in t), None)
    if ordinal is None:
        raise OracleCannotSolve(f"no 'n-th word' in {u!r}")
    # The paragraph is the text right after the instruction's last part.
    tail = next(i for i, t in enumerate(texts) if t.startswith("in the paragraph"))
    words = texts[tail + 1].split()
    index = int(ordinal.group(1)) - 1
    if index >= len(words):
        raise OracleCannotSolve(f"the paragraph has only {len(words)} words")
    return _type_and_submit(nodes, re.sub(r"[^A-Za-z0-9]", "", words[index]))


def read_table(u: str, nodes: list[TreeNode]) -> list[str]:
    key = match(r"Enter the value of (.*) into the text field", u).group(1)
    cells = find_nodes(nodes, "cell")
    for label, value in zip(cells, cells[1:], strict=False):
        if label.name == key:
            return _type_and_submit(nodes, value.name)
    raise OracleCannotSolve(f"no table row {key!r}")


def multi_orderings(u: str, nodes: list[TreeNode]) -> list[str]:
    genre, director, year = match(
        r"Search for (.*) movies directed by (.*) from year (\d+)", u
    ).groups()
    wanted = {"Genre": genre, "Director": director, "Year": year}
    plan, label = [], None
    for n in nodes:  # each row: its header, then the textbox in its cell
        if n.role == "rowheader":
            label = n.name
        elif n.role == "textbox" and label in wanted:
            plan.append(f"type [{n.id}] [{wanted.pop(label)}] [0]")
    if wanted:
        raise OracleCannotSolve(f"no field for {sorted(wanted)}")
    submit = [n for n in nodes if n.role in ("StaticText", "button") and n.name == "Submit"]
    if not submit:
        raise OracleCannotSolve("no Submit on the page")
    return [*plan, f"click [{submit[-1].id}]"]
