"""Online induction (AWM): turn the agent's own successful runs into workflows, run after run.

Successful trajectories are de-duplicated (template id, then abstract trajectory; a research
run's template is its question's form, and only that counts, see induce_from_memory) and either
kept as concrete worked examples (`rule` mode) or abstracted by an LLM (`llm` mode). Memory is
updated after every run or every N successful runs. The agents learn through their memory API
(`induce_from_memory`); `induce_online` and OnlineInduction induce over every website at once,
merge and log each update (the `workflows induce` command, the AWM experiment).
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections import defaultdict
from collections.abc import Iterable
from typing import Any, Protocol

from memory.labels import slugify, website_stem
from memory.trajectories import Trajectory, dedup_by_template, deduplicate
from memory.workflows.forms import abstract_run, form_key
from memory.workflows.induction import InductionResult, filter_workflows, induce
from memory.workflows.params import parameterize
from memory.workflows.types import Provenance, Workflow
from prompts.memory import QUESTION_LIKE, RUN_WORKFLOW
from prompts.untrusted import data
from prompts.workflows import (
    ONLINE_INSTRUCTION,
    ONLINE_WORKED_EXAMPLE,
    ONLINE_WORKED_EXAMPLE_WORKFLOW_NAMES,
)

log = logging.getLogger(__name__)

MODES = ("rule", "llm")
MAX_STEP_CHARS = 300  # a concrete step is an action line, not a page dump


def _one_line(text: str) -> str:
    return " ".join(text.split())[:MAX_STEP_CHARS]


def induction_example(numbered: tuple[int, Trajectory]) -> str:
    n, t = numbered
    return "\n".join(
        [f"## Query {n}: {data(t.task)}", "Actions:", *(data(_one_line(s.action)) for s in t.steps)]
    )


def rule_workflows(trajectories: list[Trajectory], *, forms: bool = False) -> list[Workflow]:
    """Each de-duplicated success becomes a workflow (AWM's rule-based induction).

    Values the task states (the username to type, the checkbox to tick) become {placeholders}
    (memory.workflows.params), so the workflow fits the template's other tasks and can run as a
    callable action; the name comes from the task without them, so later runs of the same
    template update one workflow instead of adding one per value. With `forms` (tasks that are
    questions, steps that are searches), every name and number becomes a placeholder
    (memory.workflows.forms): the workflow is a plan for questions of that form, and carries
    no one question's entities, or its answer, to another, and is named by its template id
    where it has one (a task's attempt and a whole run's plan for one request differ).
    """
    out = []
    for t in trajectories:
        steps, task = _general(t, forms)
        plain = re.sub(r"\{[^{}]*\}", "", t.template_id if forms and t.template_id else task)
        out.append(
            Workflow(
                name=slugify(plain, max_len=48) or f"run_{t.id}",
                description=RUN_WORKFLOW.format(
                    like=QUESTION_LIKE if forms else "", task=_one_line(task)
                ),
                steps=[_one_line(s) for s in steps],
                provenance=Provenance(
                    website=t.website,
                    sources=[t.id],
                    origin="online-rule",
                    template=(t.template_id or "") if forms else "",
                ),
            )
        )
    return out


def _general(t: Trajectory, forms: bool) -> tuple[list[str], str]:
    """(steps, task) of one run with what varies between its uses as {placeholders}."""
    if forms:
        task, steps = abstract_run(t.task, [s.action for s in t.steps])
        return steps, task
    try:
        general = parameterize([t])
        return general.steps, general.description
    except ValueError:  # no steps to generalise: keep the run as it was
        return [s.action for s in t.steps], t.task


def _named_apart(candidates: list[Workflow], existing: list[Workflow]) -> list[Workflow]:
    """A workflow of one form named as another form's (a name is cut at 48 characters and
    drops the placeholders) gets its form's digest appended: as a duplicate by name, that
    form would never get a workflow of its own."""
    owners = {w.name: form_key(w.provenance.template) for w in existing}
    for w in candidates:
        key = form_key(w.provenance.template)
        if key and owners.setdefault(w.name, key) != key:
            w.name = f"{w.name[:41]}_{hashlib.sha1(key.encode()).hexdigest()[:6]}"
            owners[w.name] = key
    return candidates


def induce_site(
    existing: list[Workflow],
    site: str,
    trajs: list[Trajectory],
    mode: str,
    model: Any,
    spec: str | None,
    *,
    forms: bool = False,
) -> InductionResult:
    """Workflows from one website's de-duplicated successes, minus those `existing` covers
    (`forms`: rule mode abstracts every name, see rule_workflows)."""
    if mode == "rule":
        candidates = _named_apart(rule_workflows(trajs, forms=forms), existing)
        kept, dropped = filter_workflows(candidates, existing=existing)
        return InductionResult(
            kept=kept, dropped=dropped, examples_used=len(trajs), examples_total=len(trajs)
        )
    # LLM mode re-induces from every success so far (as AWM did); its own earlier workflows
    # are replaced by name rather than counted as duplicates.
    others = [w for w in existing if w.provenance.origin != "online-llm"]
    result = induce(
        model=model,
        spec=spec,
        instruction=ONLINE_INSTRUCTION,
        worked_example=ONLINE_WORKED_EXAMPLE,
        worked_names=ONLINE_WORKED_EXAMPLE_WORKFLOW_NAMES,
        items=list(enumerate(trajs, 1)),
        render=induction_example,
        existing=others,
        structured=(spec or "local").startswith("local"),
    )
    for w in result.kept:
        w.provenance = Provenance(website=site, sources=[t.id for t in trajs], origin="online-llm")
    return result


class LearningMemory(Protocol):
    """What induction needs of memory.agent_memory.AgentMemory (the nodes' memory API)."""

    def trajectories(
        self, website: str | None, *, successful_only: bool = True
    ) -> list[Trajectory]: ...

    def workflows(self, website: str) -> list[Workflow]: ...

    def put_workflows(self, website: str, workflows: Iterable[Workflow]) -> int: ...

    def merge_workflows(self, website: str, workflows: Iterable[Workflow]) -> tuple[int, int]: ...

    def record_trajectory(self, trajectory: Trajectory) -> None: ...

    def log_workflow_update(self, entry: dict[str, Any]) -> None: ...


def induce_from_memory(
    memory: LearningMemory,
    website: str,
    *,
    mode: str,
    model: Any,
    spec: str | None,
    every: int = 1,
    forms: bool = False,
) -> InductionResult | None:
    """After a success of `website`: at every `every`-th success, its workflows are induced
    again from all its successes so far and stored. None when this success is not such a one.

    With `forms` (see rule_workflows) a run's template is its question's form, and runs are
    de-duplicated by it alone: two forms planned with the same number of free-text searches
    share an abstract trajectory and are still two plans."""
    successes = memory.trajectories(website)
    if len(successes) % max(1, every):
        return None
    unique = dedup_by_template(successes) if forms else deduplicate(successes)
    result = induce_site(memory.workflows(website), website, unique, mode, model, spec, forms=forms)
    if result.kept:
        memory.put_workflows(website, result.kept)
    return result


def induce_online(
    memory: LearningMemory,
    *,
    mode: str = "rule",
    model: Any = None,
    spec: str | None = None,
    website: str | None = None,
) -> dict[str, InductionResult]:
    """Induce from every recorded successful trajectory (per website), merge what was kept
    into memory and log each update (memory.agent_memory.AgentMemory.workflow_updates)."""
    if mode not in MODES:
        raise ValueError(f"unknown online induction mode {mode!r}; use 'rule' or 'llm'")
    if mode == "llm" and model is None:
        raise ValueError("llm mode needs a model (core.models.Models.chat)")
    by_site: dict[str, list[Trajectory]] = defaultdict(list)
    for t in memory.trajectories(website):
        by_site[website_stem(t.website)].append(t)
    results: dict[str, InductionResult] = {}
    for site, trajs in by_site.items():
        unique = deduplicate(trajs)
        result = induce_site(memory.workflows(site), site, unique, mode, model, spec)
        added, updated = memory.merge_workflows(site, result.kept) if result.kept else (0, 0)
        memory.log_workflow_update(
            {
                "mode": f"online-{mode}",
                "website": site,
                "added": added,
                "updated": updated,
                "trajectories": len(trajs),
                "after_dedup": len(unique),
                "kept": [w.name for w in result.kept],
                "dropped": result.dropped,
            }
        )
        results[site] = result
    return results


class OnlineInduction:
    """Call `after_run(trajectory)` when a run ends; memory updates every `every` successes
    (counted over every website's recorded successes, so a resumed run keeps the count)."""

    def __init__(
        self,
        memory: LearningMemory,
        *,
        mode: str = "rule",
        every: int = 1,
        model: Any = None,
        spec: str | None = None,
    ) -> None:
        if every < 1:
            raise ValueError("every must be >= 1")
        self.memory, self.mode, self.every, self.model, self.spec = memory, mode, every, model, spec

    def after_run(self, trajectory: Trajectory) -> dict[str, InductionResult] | None:
        """Record the run; when enough successes have accumulated, update memory and return
        the per-website results (None when nothing was induced this time)."""
        self.memory.record_trajectory(trajectory)
        if not trajectory.success or len(self.memory.trajectories(None)) % self.every:
            return None
        return induce_online(
            self.memory,
            mode=self.mode,
            model=self.model,
            spec=self.spec,
            website=trajectory.website,
        )
