"""What the web agent is told about its last action: refused (and why), or carried out and the
page left exactly as it was; and the actions spent on the page as it is, which the next decision
does not offer again (agents.web.action_schema).
"""

from __future__ import annotations

from browser.actions import Action, parse_action
from browser.trajectory import TrajectoryStep, same_page
from prompts.untrusted import data
from prompts.web import FEEDBACK, UNCHANGED


def feedback_section(reason: str | None, history: list[TrajectoryStep], observation: str) -> str:
    """Why the last answer was refused; else, when the last action changed nothing, that."""
    if reason:
        return FEEDBACK.format(reason=data(reason))
    last = unchanged_by(history, observation)
    return UNCHANGED.format(action=data(last.action)) if last is not None else ""


def unchanged_by(history: list[TrajectoryStep], observation: str) -> TrajectoryStep | None:
    """The last step, when it was carried out and `observation` is exactly the page it acted on.

    A small model repeats an action that worked once (typing a value again instead of pressing
    Submit) until the repeated-action limit ends the episode; the page being identical to what
    it acted on is the one sign it cannot see by itself.
    """
    last = history[-1] if history else None
    if last is None or not last.valid or not last.action:
        return None
    return last if same_page(last.observation, observation) else None


def spent_actions(history: list[TrajectoryStep], observation: str) -> list[Action]:
    """Every action carried out since the page last changed, none of which changed it
    (agents.web.action_schema `spent`): not only the last, or a model shown the same page twice
    alternates between two such clicks until the step limit."""
    spent: list[Action] = []
    after = observation
    for step in reversed(history):
        if not step.valid or not step.action:
            break  # refused: its feedback says why, and it did not act on the page
        if not same_page(step.observation, after):
            break
        spent.append(parse_action(step.action))
        after = step.observation
    return spent
