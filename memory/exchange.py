"""Workflows and trajectories as files a person reads, edits and diffs: export and import.

    export_memory(memory, folder)   FOLDER/workflows/<site>.txt (+ <site>.meta.json, provenance)
                                    FOLDER/trajectories/<site>.jsonl
    import_memory(memory, folder)   the same layout back into the store, hand edits included

The store holds them (memory.agent_memory); these files are how they travel: AWM's text for
workflows (memory.workflows.files), JSON Lines for trajectories (memory.trajectories). A home
from before the store held them keeps them in that layout under HOME itself: the project's
store imports them once, the first time it opens that home (import_home_once).
"""

from __future__ import annotations

import logging
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from langgraph.store.base import BaseStore

from memory.agent_memory import AgentMemory
from memory.labels import now_iso, website_stem
from memory.trajectories import Trajectory, TrajectoryLog
from memory.workflows.files import WorkflowFiles
from memory.workflows.types import Workflow

log = logging.getLogger(__name__)

IMPORTS = ("memory_imports",)  # the store's record of the home files it imported once
HOME_FILES = "home-files"


@dataclass
class Moved:
    """What an export or import carried, and the blocks of a file it could not read."""

    workflows: int = 0
    trajectories: int = 0
    problems: list[str] = field(default_factory=list)
    left_out: int = 0  # trajectories an untrusted import did not take

    def summary(self) -> dict[str, object]:
        return {
            "workflows": self.workflows,
            "trajectories": self.trajectories,
            "trajectories_left_out": self.left_out,
            "problems": self.problems,
        }


def export_memory(memory: AgentMemory, folder: str | Path, website: str | None = None) -> Moved:
    """Write the workflows and trajectories of `website` (every website when None) under
    `folder`; a site's files are replaced whole, so exporting again gives the same files."""
    Path(folder).mkdir(parents=True, exist_ok=True)  # there, even when there is nothing yet
    by_site: dict[str, list[Workflow]] = defaultdict(list)
    for workflow in memory.workflows(website):
        by_site[website_stem(workflow.website)].append(workflow)
    files = WorkflowFiles(folder)
    for site, workflows in sorted(by_site.items()):
        files.save(site, workflows)
    runs: dict[str, list[Trajectory]] = defaultdict(list)
    for run in memory.trajectories(website, successful_only=False):
        runs[website_stem(run.website)].append(run)
    trajectories = TrajectoryLog(folder)
    for site, site_runs in sorted(runs.items()):
        trajectories.save(site, site_runs)
    return Moved(sum(map(len, by_site.values())), sum(map(len, runs.values())))


def import_memory(
    memory: AgentMemory, folder: str | Path, *, website: str | None = None, trust: bool = True
) -> Moved:
    """Read `folder`'s workflows (a same-named one is replaced, keeping what it was learned
    from) and trajectories (by id) into memory; a block AWM's format cannot read is skipped
    and named in `problems`. A trajectory line that is not one raises ValueError first.

    Without `trust` the workflows come in untrusted (prompts quote them as data) and the
    trajectories not at all: induction would make this agent's own workflows of them."""
    files, runs = WorkflowFiles(folder), TrajectoryLog(folder)
    trajectories = runs.load(website, successful_only=False)  # checked before anything is saved
    moved = Moved(problems=files.problems())
    for site in [website_stem(website)] if website else files.websites():
        workflows = files.load(site)
        for workflow in workflows:
            workflow.provenance.trusted = workflow.provenance.trusted and trust
        memory.merge_workflows(site, workflows)
        moved.workflows += len(workflows)
    if not trust:
        moved.left_out = len(trajectories)
        return moved
    for run in trajectories:
        memory.record_trajectory(run)
    moved.trajectories = len(trajectories)
    return moved


def import_home_once(store: BaseStore, home: str | Path) -> Moved | None:
    """Import HOME/workflows and HOME/trajectories, written before the store held them, the
    first time the store opens that home; None when there was nothing to import or it was
    done before. The files stay as they were."""
    if store.get(IMPORTS, HOME_FILES) is not None:
        return None
    files, runs = WorkflowFiles(home), TrajectoryLog(home)
    if not files.files() and not runs.files():
        return None
    moved = import_memory(AgentMemory(store), home)
    store.put(IMPORTS, HOME_FILES, {"at": now_iso(), **moved.summary()}, index=False)
    log.warning(
        "memory: imported %d workflows and %d trajectories from %s into its store, once; "
        "those files are now an export (`workflows export`, `workflows import`)",
        moved.workflows,
        moved.trajectories,
        home,
    )
    return moved
