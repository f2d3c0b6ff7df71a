"""Scripted MiniWoB++ policies that read the utterance and the tree and act through the env.

They prove the environment can reach reward 1: every move is an ordinary action text
(`click [id]`, `type [id] [text] [0]`), ids come from the observation, nothing runs in the page.
Run them: `python -m evals.miniwob_oracle --tasks click-button,enter-text --episodes 3`.
"""

from __future__ import annotations

import argparse
import ast
import asyncio
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass

from browser.trajectory import TrajectoryStep
from evals.miniwob import Policy, run_miniwob

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


def _find(nodes: list[TreeNode], role: str, name: str | None = None) -> list[TreeNode]:
    return [n for n in nodes if n.role == role and (name is None or n.name == name)]


def _one(nodes: list[TreeNode], role: str, name: str | None = None, nth: int = 0) -> str:
    found = _find(nodes, role, name)
    if len(found) <= nth:
        raise OracleCannotSolve(f"no {role} {name or ''!r} (#{nth + 1}) on the page")
    return found[nth].id


def _match(pattern: str, utterance: str) -> re.Match[str]:
    found = re.search(pattern, utterance)
    if not found:
        raise OracleCannotSolve(f"utterance {utterance!r} does not match {pattern!r}")
    return found


def _click_button(u: str, nodes: list[TreeNode]) -> list[str]:
    label = _match(r'Click on the "(.+)" button', u).group(1)
    return [f"click [{_one(nodes, 'button', label)}]"]


def _click_link(u: str, nodes: list[TreeNode]) -> list[str]:
    # MiniWoB's links are <span class="alink">: the tree shows them as their text.
    word = _match(r'Click on the link "(.+)"', u).group(1)
    found = [n for n in nodes if n.role in ("link", "StaticText") and n.name == word]
    if not found:
        raise OracleCannotSolve(f"no link {word!r} on the page")
    return [f"click [{found[0].id}]"]


def _enter_text(u: str, nodes: list[TreeNode]) -> list[str]:
    text = _match(r'Enter "(.*)" into the text field', u).group(1)
    return [f"type [{_one(nodes, 'textbox')}] [{text}] [0]", f"click [{_one(nodes, 'button')}]"]


_ORDINALS = {"1st": 0, "2nd": 1, "3rd": 2}


def _focus_text(u: str, nodes: list[TreeNode]) -> list[str]:
    nth = re.search(r"the (1st|2nd|3rd) input", u)
    return [f"click [{_one(nodes, 'textbox', nth=_ORDINALS[nth.group(1)] if nth else 0)}]"]


def _click_checkboxes(u: str, nodes: list[TreeNode]) -> list[str]:
    wanted = _match(r"^Select (.*) and click Submit", u).group(1)
    names = [] if wanted == "nothing" else wanted.split(", ")
    clicks = [f"click [{_one(nodes, 'checkbox', name)}]" for name in names]
    return [*clicks, f"click [{_one(nodes, 'button', 'Submit')}]"]


def _click_option(u: str, nodes: list[TreeNode]) -> list[str]:
    name = _match(r"^Select (.*) and click Submit", u).group(1)
    return [f"click [{_one(nodes, 'radio', name)}]", f"click [{_one(nodes, 'button', 'Submit')}]"]


def _click_dialog(u: str, nodes: list[TreeNode]) -> list[str]:
    _match(r'clicking the "x"', u)
    return [f"click [{_one(nodes, 'button', 'Close')}]"]


def _login_user(u: str, nodes: list[TreeNode]) -> list[str]:
    found = _match(r'username "(.*)" and the password "(.*)"', u)
    user, password = found.groups()
    # The fields have no accessible names; the labels before them say Username, Password.
    return [
        f"type [{_one(nodes, 'textbox', nth=0)}] [{user}] [0]",
        f"type [{_one(nodes, 'textbox', nth=1)}] [{password}] [0]",
        f"click [{_one(nodes, 'button', 'Login')}]",
    ]


def _enter_password(u: str, nodes: list[TreeNode]) -> list[str]:
    password = _match(r'Enter the password "(.*)" into both', u).group(1)
    return [
        f"type [{_one(nodes, 'textbox', nth=0)}] [{password}] [0]",
        f"type [{_one(nodes, 'textbox', nth=1)}] [{password}] [0]",
        f"click [{_one(nodes, 'button', 'Submit')}]",
    ]


def _click_tab(u: str, nodes: list[TreeNode]) -> list[str]:
    tab = _match(r"Click on (Tab #\d)", u).group(1)
    return [f"click [{_one(nodes, 'link', tab)}]"]


def _choose_list(u: str, nodes: list[TreeNode]) -> list[str]:
    item = _match(r"^Select (.*) from the list", u).group(1)
    return [f"type [{_one(nodes, 'combobox')}] [{item}] [0]", f"click [{_one(nodes, 'button')}]"]


def _click_button_sequence(u: str, nodes: list[TreeNode]) -> list[str]:
    first, second = _match(r"Click button (\w+), then click button (\w+)", u).groups()
    return [f"click [{_one(nodes, 'button', first)}]", f"click [{_one(nodes, 'button', second)}]"]


Planner = Callable[[str, list[TreeNode]], list[str]]
PLANNERS: dict[str, Planner] = {
    "click-button": _click_button,
    "click-link": _click_link,
    "enter-text": _enter_text,
    "focus-text": _focus_text,
    "focus-text-2": _focus_text,
    "click-checkboxes": _click_checkboxes,
    "click-option": _click_option,
    "click-dialog": _click_dialog,
    "login-user": _login_user,
    "enter-password": _enter_password,
    "click-tab": _click_tab,
    "choose-list": _choose_list,
    "click-button-sequence": _click_button_sequence,
}


class OraclePolicy:
    """A policy for one task: plans from the first observation, then plays the plan.

    The plan's ids stay valid because the environment's ids are DOM node ids, stable within a
    page. Once the plan is used up it stops, so a wrong plan ends the episode quickly.
    """

    def __init__(self, task: str):
        if task not in PLANNERS:
            raise ValueError(f"no oracle for {task!r}; known: {', '.join(sorted(PLANNERS))}")
        self.task = task
        self._plan: list[str] = []

    async def __call__(
        self, utterance: str, observation: str, history: list[TrajectoryStep]
    ) -> str:
        if not history:
            self._plan = PLANNERS[self.task](utterance, parse_tree(observation))
        step = len(history)
        return self._plan[step] if step < len(self._plan) else "stop [plan finished]"


def oracle_for(tasks: list[str]) -> Policy:
    """One policy for a multi-task run (the policy is not told the task): the page title picks
    the oracle, else the first whose planner understands the utterance and the page."""
    oracles = {t: OraclePolicy(t) for t in tasks}
    chosen: dict[str, str] = {}

    async def policy(utterance: str, observation: str, history: list[TrajectoryStep]) -> str:
        if not history:
            chosen["task"] = _pick(tasks, utterance, observation)
        return await oracles[chosen["task"]](utterance, observation, history)

    return policy


def _pick(tasks: list[str], utterance: str, observation: str) -> str:
    nodes = parse_tree(observation)
    title = nodes[0].name if nodes else ""
    by_title = [t for t in tasks if t.replace("-", " ").title() + " Task" == title]
    for task in by_title + [t for t in tasks if t not in by_title]:
        try:
            PLANNERS[task](utterance, nodes)
        except OracleCannotSolve:
            continue
        return task
    raise OracleCannotSolve(f"no oracle among {tasks} understands {utterance!r}")


async def _main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description="Run the scripted MiniWoB++ oracles.")
    parser.add_argument("--tasks", default=",".join(PLANNERS), help="comma-separated tasks")
    parser.add_argument("--episodes", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    tasks = [t for t in args.tasks.split(",") if t]
    unknown = [t for t in tasks if t not in PLANNERS]
    if unknown:
        print(f"error: no oracle for {', '.join(unknown)}", file=sys.stderr)
        return 2
    report = await run_miniwob(tasks, args.episodes, args.seed, oracle_for(tasks))
    print(report.format_table())
    return 0 if report.success_rate == 1.0 else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(_main(sys.argv[1:])))
