"""MiniWoB++ for Agent Workflow Memory: episodes as trajectories, and the AWM experiment's runner.

Each MiniWoB task is its own "website" (`miniwob-<task>`, harness.website_of), so workflows and
past runs of one task are retrieved for that task only; the task name is the template id for
de-duplication.

    python -m evals.awm.miniwob --tasks click-button,focus-text --episodes 3 --model local
runs every episode without workflows, then again with AWM online (workflows induced from the
successes so far), and prints success rate, steps and tokens for each arm.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path

from browser.config import EnvConfig
from browser.limits import Limits
from evals.awm.experiment import ExperimentTask, RunOutcome, run_experiment
from evals.miniwob.harness import EpisodeResult, run_miniwob, website_of
from memory.trajectories import Trajectory, trajectory_from_web_steps


def episode_trajectory(episode: EpisodeResult) -> Trajectory:
    """An episode as a trajectory judged by MiniWoB's own reward (success = raw reward 1)."""
    return trajectory_from_web_steps(
        episode.utterance,
        episode.trajectory,
        website=website_of(episode.task),
        success=episode.success,
        template_id=episode.task,
        judged_by="evaluator",
    )


def miniwob_tasks(
    names: list[str], episodes: int, seed: int = 0, max_steps: int = 30
) -> list[ExperimentTask]:
    """One experiment task per (MiniWoB task, seed), tasks interleaved so memory can carry over."""
    return [
        ExperimentTask(
            id=f"{name}#{seed + i}",
            intent=f"MiniWoB task {name}",
            website=website_of(name),
            template_id=name,
            config={"miniwob_task": name, "seed": seed + i},
        )
        for i in range(episodes)
        for name in names
    ]


def run_task(task: ExperimentTask, *, model: str, workflows: str) -> RunOutcome:
    """evals.awm.experiment runner: one MiniWoB episode with the web agent's policy."""
    from evals.miniwob.policy import make_policy

    name, seed = task.config["miniwob_task"], int(task.config["seed"])
    limits = Limits(max_steps=int(task.config.get("max_steps", 30)))
    config = EnvConfig(limits=limits)
    # The runner's own memory home is empty (no reflections, no past runs), so the two arms
    # differ only by the workflows text the experiment passes in.
    with tempfile.TemporaryDirectory(prefix="awm-miniwob-runner-") as home:
        policy = make_policy(
            model,
            home=home,
            use_workflows=False,
            workflows=workflows,
            trajectories_k=0,
            website=task.website,
        )
        report = asyncio.run(run_miniwob([name], 1, seed, policy, config=config, progress=None))
    episode = report.episodes[0]
    print(
        f"  {task.id}: reward={episode.raw_reward:+.2f} steps={episode.steps} "
        f"workflows={'yes' if workflows else 'no'}",
        file=sys.stderr,
    )
    return RunOutcome(
        success=episode.success,
        steps=episode.steps,
        tokens=episode.tokens,
        trajectory=episode_trajectory(episode),
        answer=episode.reason or "",
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m evals.awm.miniwob",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--tasks", required=True, help="comma-separated MiniWoB task names")
    p.add_argument("--episodes", type=int, default=2, help="episodes (seeds) per task")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--model", default="local", help="any model string ('local', 'openai:…')")
    p.add_argument("--max-steps", type=int, default=30, help="actions per episode")
    p.add_argument("--k", type=int, default=3, help="workflows per prompt")
    p.add_argument(
        "--induction",
        choices=("rule", "llm", "none"),
        default="rule",
        help="'none' = use the workflows already in --home (e.g. induced from oracle runs)",
    )
    p.add_argument("--home", default=None, help="workflow memory (default: a fresh folder)")
    args = p.parse_args(argv)
    names = [t.strip() for t in args.tasks.split(",") if t.strip()]
    home = args.home or str(Path("tmp") / "experiments" / f"awm-miniwob-{int(time.time())}")
    try:
        induce_model = None
        if args.induction == "llm":
            from core.models import Models

            induce_model = Models().chat(args.model)
        tasks = miniwob_tasks(names, args.episodes, args.seed, args.max_steps)
        report = run_experiment(
            tasks,
            run_task,
            model=args.model,
            home=home,
            k=args.k,
            induction=args.induction,
            induce_model=induce_model,
        )
    except (ValueError, OSError, RuntimeError) as exc:
        print(f"evals.awm.miniwob: {exc}", file=sys.stderr)
        return 2
    print(report.table())
    out = Path(home) / "awm_report.json"
    out.write_text(json.dumps(report.to_dict(), indent=2), encoding="utf-8")
    print(f"report: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
