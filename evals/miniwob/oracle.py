"""Scripted MiniWoB++ policies that read the utterance and the tree and act through the env.

They prove the environment can reach reward 1: every move is an ordinary action text
(`click [id]`, `type [id] [text] [0]`), ids come from the observation, nothing runs in the page.
Run them: `python -m evals.miniwob.oracle --tasks click-button,enter-text --episodes 3`.
"""

from __future__ import annotations

import argparse
import asyncio
import sys

from browser.trajectory import TrajectoryStep
from evals.miniwob import planners as p
from evals.miniwob import reading as r
from evals.miniwob.harness import Policy, run_miniwob
from evals.miniwob.planners import OracleCannotSolve, Planner, TreeNode, parse_tree

__all__ = [
    "MULTI_STEP",
    "PLANNERS",
    "OracleCannotSolve",
    "OraclePolicy",
    "TreeNode",
    "oracle_for",
    "parse_tree",
]
PLANNERS: dict[str, Planner] = {
    "click-button": p.click_button,
    "click-link": p.click_link,
    "enter-text": p.enter_text,
    "focus-text": p.focus_text,
    "focus-text-2": p.focus_text,
    "click-checkboxes": p.click_checkboxes,
    "click-option": p.click_option,
    "click-dialog": p.click_dialog,
    "login-user": p.login_user,
    "enter-password": p.enter_password,
    "click-tab": p.click_tab,
    "choose-list": p.choose_list,
    "click-button-sequence": p.click_button_sequence,
    "click-checkboxes-large": p.click_checkboxes,
    "enter-text-dynamic": p.enter_text,
    "enter-text-2": r.enter_text_2,
    "click-collapsible": r.click_collapsible,
    "simple-arithmetic": r.simple_arithmetic,
    "find-word": r.find_word,
    "read-table": r.read_table,
    "multi-orderings": r.multi_orderings,
}
# Families whose solutions take two or more actions (the AWM experiment's default set).
MULTI_STEP = (
    "enter-text",
    "enter-text-2",
    "enter-text-dynamic",
    "login-user",
    "enter-password",
    "click-checkboxes",
    "click-checkboxes-large",
    "click-option",
    "choose-list",
    "click-button-sequence",
    "click-collapsible",
    "simple-arithmetic",
    "find-word",
    "read-table",
    "multi-orderings",
)


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
    parser = argparse.ArgumentParser(
        prog="python -m evals.miniwob.oracle", description="Run the scripted MiniWoB++ oracles."
    )
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
