"""The AWM comparison: the same tasks run twice, without and with workflow memory.

The "with" arm is AWM online: before each task the relevant workflows go into the runner's
prompt; after each success its trajectory is induced into memory for the next tasks. The
runner (the web agent, or anything else) is pluggable:

    runner(task: ExperimentTask, *, model: str, workflows: str) -> RunOutcome

    python -m evals.awm.experiment --tasks tests/data/webarena/test.raw.json --limit 20 \
        --runner mypackage.module:run_task --model local
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from memory.trajectories import Trajectory
from memory.workflows.online import OnlineInduction
from memory.workflows.retrieval import relevant_workflows_text


@dataclass
class ExperimentTask:
    id: str
    intent: str
    website: str
    template_id: str | None = None
    config: dict[str, Any] = field(default_factory=dict)  # the raw task config, for the runner


@dataclass
class RunOutcome:
    success: bool
    steps: int
    tokens: int  # prompt + completion tokens the run spent
    trajectory: Trajectory | None = None  # needed for online induction
    answer: str = ""


class Runner(Protocol):
    def __call__(self, task: ExperimentTask, *, model: str, workflows: str) -> RunOutcome: ...


@dataclass
class ArmReport:
    name: str
    tasks: int = 0
    successes: int = 0
    steps: int = 0
    tokens: int = 0
    prompts_with_workflows: int = 0
    rows: list[dict[str, Any]] = field(default_factory=list)

    @property
    def success_rate(self) -> float:
        return self.successes / self.tasks if self.tasks else 0.0

    def summary(self) -> dict[str, Any]:
        n = max(self.tasks, 1)
        return {
            "arm": self.name,
            "tasks": self.tasks,
            "successes": self.successes,
            "success_rate": round(self.success_rate, 4),
            "mean_steps": round(self.steps / n, 2),
            "total_tokens": self.tokens,
            "mean_tokens": round(self.tokens / n, 1),
            "prompts_with_workflows": self.prompts_with_workflows,
        }


@dataclass
class ExperimentReport:
    model: str
    baseline: ArmReport
    with_workflows: ArmReport
    workflows_at_end: int
    memory_home: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "arms": [self.baseline.summary(), self.with_workflows.summary()],
            "workflows_at_end": self.workflows_at_end,
            "memory_home": self.memory_home,
            "rows": {"baseline": self.baseline.rows, "with_workflows": self.with_workflows.rows},
        }

    def table(self) -> str:
        head = f"{'arm':<16}{'tasks':>6}{'success':>9}{'rate':>7}{'steps':>8}{'tokens':>10}"
        lines = [f"AWM comparison, model {self.model}", head]
        for arm in (self.baseline, self.with_workflows):
            s = arm.summary()
            lines.append(
                f"{s['arm']:<16}{s['tasks']:>6}{s['successes']:>9}{s['success_rate']:>7.2f}"
                f"{s['mean_steps']:>8.1f}{s['total_tokens']:>10}"
            )
        return "\n".join(lines)


def _run_arm(
    name: str,
    tasks: Sequence[ExperimentTask],
    runner: Runner,
    model: str,
    memory: Callable[[ExperimentTask], str],
    after: Callable[[ExperimentTask, RunOutcome], None],
) -> ArmReport:
    arm = ArmReport(name)
    for task in tasks:
        workflows = memory(task)
        started = time.monotonic()
        outcome = runner(task, model=model, workflows=workflows)
        arm.tasks += 1
        arm.successes += int(outcome.success)
        arm.steps += outcome.steps
        arm.tokens += outcome.tokens
        arm.prompts_with_workflows += int(bool(workflows))
        arm.rows.append(
            {
                "task": task.id,
                "success": outcome.success,
                "steps": outcome.steps,
                "tokens": outcome.tokens,
                "workflows_chars": len(workflows),
                "seconds": round(time.monotonic() - started, 2),
            }
        )
        after(task, outcome)
    return arm


def run_experiment(
    tasks: Sequence[ExperimentTask],
    runner: Runner,
    *,
    model: str,
    home: str | Path,
    k: int = 3,
    embedding_model: str = "none",
    induction: str = "rule",
    every: int = 1,
    induce_model: Any = None,
    models: Any = None,
) -> ExperimentReport:
    """Run `tasks` without workflows, then with (AWM online); memory is `home`'s store.

    `induction` is 'rule', 'llm' (needs `induce_model`) or 'none' (use `home`'s workflows as
    they are, e.g. induced offline beforehand). `embedding_model` 'none' shows workflows in
    stored order (the store then embeds with 'hashing'); else they are searched by meaning.
    """
    from memory.agent_memory import AgentMemory
    from memory.stores.project_store import open_project_store

    if induction not in ("rule", "llm", "none"):
        raise ValueError(f"induction must be 'rule', 'llm' or 'none', not {induction!r}")
    baseline = _run_arm("no_workflows", tasks, runner, model, lambda t: "", lambda t, o: None)
    semantic = embedding_model != "none"
    spec = embedding_model if semantic else "hashing"
    with open_project_store(home, spec, models=models) as store:
        memory = AgentMemory(store)
        online = None
        if induction != "none":
            online = OnlineInduction(
                memory, mode=induction, every=every, model=induce_model, spec=model
            )

        def shown(task: ExperimentTask) -> str:
            return relevant_workflows_text(
                task.intent, store=store, k=k, semantic=semantic, website=task.website
            )

        def after(task: ExperimentTask, outcome: RunOutcome) -> None:
            if online is None or outcome.trajectory is None:
                return
            traj = outcome.trajectory
            traj.success = outcome.success
            traj.website = traj.website or task.website
            traj.template_id = traj.template_id or task.template_id
            online.after_run(traj)

        with_wf = _run_arm("with_workflows", tasks, runner, model, shown, after)
        induced = len(memory.workflows(None))
    return ExperimentReport(model, baseline, with_wf, induced, str(home))


def load_webarena_tasks(
    path: str | Path, *, limit: int | None = None, sites: Sequence[str] = ()
) -> list[ExperimentTask]:
    """WebArena task configs (e.g. test.raw.json) as experiment tasks, in file order."""
    configs = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(configs, list):
        raise ValueError(f"{path}: expected a JSON list of WebArena task configs")
    out = []
    for c in configs:
        site = (c.get("sites") or ["general"])[0]
        if sites and site not in sites:
            continue
        out.append(
            ExperimentTask(
                id=str(c["task_id"]),
                intent=c["intent"],
                website=site,
                template_id=str(c.get("intent_template_id")),
                config=c,
            )
        )
    return out[:limit] if limit else out


def load_runner(path: str) -> Runner:
    """'package.module:function' → the runner function."""
    module_name, _, attr = path.partition(":")
    if not module_name or not attr:
        raise ValueError(f"--runner must look like 'package.module:function', got {path!r}")
    runner = getattr(importlib.import_module(module_name), attr, None)
    if not callable(runner):
        raise ValueError(f"{path} is not a callable runner")
    return runner


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m evals.awm.experiment",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--tasks", required=True, help="WebArena task configs (JSON list)")
    p.add_argument("--runner", required=True, help="package.module:function that runs one task")
    p.add_argument(
        "--model", default="local", help="any model string ('local', 'openai:gpt-4o', …)"
    )
    p.add_argument("--limit", type=int, default=None)
    p.add_argument("--sites", nargs="*", default=[], help="only tasks of these sites")
    p.add_argument("--k", type=int, default=3, help="workflows per prompt")
    p.add_argument("--induction", choices=("rule", "llm", "none"), default="rule")
    p.add_argument("--embedding-model", default="none", help="'none' = file order; or 'local' etc.")
    p.add_argument("--home", default=None, help="workflow memory (default: a fresh folder)")
    p.add_argument("--out", default=None, help="write the JSON report here")
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        tasks = load_webarena_tasks(args.tasks, limit=args.limit, sites=args.sites)
        runner = load_runner(args.runner)
        from core.models import Models

        models, induce_model = Models(), None
        if args.induction == "llm":
            induce_model = models.chat(args.model)
        home = args.home or str(Path("tmp") / "experiments" / f"awm-{int(time.time())}")
        report = run_experiment(
            tasks,
            runner,
            model=args.model,
            home=home,
            k=args.k,
            embedding_model=args.embedding_model,
            induction=args.induction,
            induce_model=induce_model,
            models=models,
        )
    except (ValueError, OSError, ImportError) as exc:
        print(f"evals.awm.experiment: {exc}", file=sys.stderr)
        return 2
    print(report.table())
    out = Path(args.out or Path(home) / "awm_report.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report.to_dict(), indent=2), encoding="utf-8")
    print(f"report: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
