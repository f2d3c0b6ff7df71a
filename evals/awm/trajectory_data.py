"""Real data as trajectories: AWM's WebArena one-shot prompt and WebArena task configs, so
induction and de-duplication are tested on the task sets they were made for."""

from __future__ import annotations

import re

from memory.trajectories import THINK_ACTION, Step, Trajectory


def parse_webarena_examples(text: str, website: str = "shopping") -> list[Trajectory]:
    """The `Query: …` trajectories of AWM's WebArena one-shot prompt (think = observation)."""
    body = text.split("## Summary Workflows")[0]
    chunks = re.split(r"^Query:\s*", body, flags=re.M)[1:]
    out = []
    for chunk in chunks:
        task = chunk.splitlines()[0].strip()
        steps = [Step(observation=t, action=a) for t, a in THINK_ACTION.findall(chunk)]
        out.append(Trajectory(task=task, website=website, steps=steps, success=True))
    return out


def webarena_config_trajectory(config: dict) -> Trajectory:
    """A WebArena task config as a (scripted) successful trajectory: open the start page, answer.

    Real configs carry the template ids and sites; the steps are what a successful agent on an
    information task does at minimum, so de-duplication can be tested on real task sets.
    """
    answers = config.get("eval", {}).get("reference_answers") or {}
    answer = next(iter(answers.values()), "") if isinstance(answers, dict) else ""
    steps = [
        Step(observation="start", action=f"goto({config.get('start_url', '')!r})"),
        Step(observation="page", action=f"send_msg_to_user({str(answer)!r})"),
    ]
    return Trajectory(
        task=config["intent"],
        website=(config.get("sites") or ["general"])[0],
        steps=steps,
        success=True,
        template_id=str(config["intent_template_id"]),
        judged_by="evaluator",
        id=f"webarena-{config['task_id']}",
    )
