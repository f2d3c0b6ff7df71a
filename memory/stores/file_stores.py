"""BaseStore views of the human-readable memory files: workflows (AWM text) and trajectories.

    WorkflowFileStore(home, embeddings)   ("workflows", website) <-> <home>/workflows/<site>.txt
    TrajectoryFileStore(home)             ("trajectories", website) <-> <home>/trajectories/*.jsonl

They let the graphs reach workflows and trajectories through `runtime.store` while the files
stay what a person reads, edits and diffs (and what `main.py workflows …` manages). A put
upserts: a workflow by name (provenance merged), a trajectory by id (the last line wins).
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from langchain_core.embeddings import Embeddings
from langgraph.store.base import (
    GetOp,
    Item,
    ListNamespacesOp,
    PutOp,
    SearchItem,
    SearchOp,
)

from memory.agent_memory import TRAJECTORIES, WORKFLOWS
from memory.labels import GENERAL, website_stem
from memory.stores.dispatch import DispatchingStore
from memory.stores.matching import listed_namespaces, value_matches
from memory.trajectories import Trajectory, TrajectoryLog
from memory.workflows.files import WorkflowFiles
from memory.workflows.retrieval import WorkflowIndex
from memory.workflows.types import workflow_from_value, workflow_value


def _parse_time(text: str) -> datetime:
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        return datetime.now(UTC)
    return when if when.tzinfo else when.replace(tzinfo=UTC)


class _FileStore(DispatchingStore):
    """A store over one root of files: ("root", website) namespaces."""

    root = ""

    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        return listed_namespaces(self._namespaces(), op)

    def _site(self, namespace: tuple[str, ...]) -> str | None:
        """The website a namespace names; None for the whole root."""
        if not namespace:
            return None
        if namespace[0] != self.root:
            raise ValueError(f"{type(self).__name__} holds only ({self.root!r}, website) items")
        return namespace[1] if len(namespace) > 1 else None

    def _namespaces(self) -> list[tuple[str, ...]]:
        raise NotImplementedError


class WorkflowFileStore(_FileStore):
    """Workflows in AWM text files; search by query uses this store's FAISS workflow index."""

    root = WORKFLOWS

    def __init__(self, home: str | Path, embeddings: Embeddings) -> None:
        self.files = WorkflowFiles(home)
        self.index = WorkflowIndex(self.files, embeddings)  # rebuilt when a file changes

    def _item(self, value: dict[str, Any], score: float | None = None) -> SearchItem:
        prov = value["provenance"]
        return SearchItem(
            (WORKFLOWS, website_stem(str(value.get("website", "")))),
            str(value["name"]),
            value,
            _parse_time(str(prov.get("created", ""))),
            _parse_time(str(prov.get("updated", ""))),
            score,
        )

    def _get(self, op: GetOp) -> Item | None:
        found = self.files.find(op.key, self._site(op.namespace))
        return self._item(workflow_value(found[0])) if found else None

    def _put(self, op: PutOp) -> None:
        site = self._site(op.namespace) or GENERAL
        if op.value is None:
            self.files.delete(op.key, site)
            return
        workflow = workflow_from_value({**op.value, "name": op.key})
        self.files.upsert(site, [workflow])

    def _search(self, op: SearchOp) -> list[SearchItem]:
        site = self._site(op.namespace_prefix)
        if op.query:
            # the index ranks every website's workflows; with a website, rank them all, then keep
            k = op.limit + op.offset if site is None else len(self.files.load())
            hits = self.index.search(op.query, k)
            items = [self._item(workflow_value(h.workflow), h.score) for h in hits]
        else:
            items = [self._item(workflow_value(w)) for w in self.files.load(site)]
        if site is not None:  # the index searches every website; keep this one
            items = [i for i in items if i.namespace[1] == website_stem(site)]
        items = [i for i in items if value_matches(i.value, op.filter)]
        return items[op.offset : op.offset + op.limit]

    def _namespaces(self) -> list[tuple[str, ...]]:
        return [(WORKFLOWS, site) for site in self.files.websites()]


class TrajectoryFileStore(_FileStore):
    """Trajectories in JSON Lines per website; a put appends, and the newest line of an id wins."""

    root = TRAJECTORIES

    def __init__(self, home: str | Path) -> None:
        self.log = TrajectoryLog(home)

    def _item(self, trajectory: Trajectory) -> SearchItem:
        when = _parse_time(trajectory.created)
        value = trajectory.to_dict()
        return SearchItem((TRAJECTORIES, trajectory.website), trajectory.id, value, when, when)

    def _all(self, site: str | None) -> list[Trajectory]:
        return self.log.load(site, successful_only=False)

    def _get(self, op: GetOp) -> Item | None:
        found = [t for t in self._all(self._site(op.namespace)) if t.id == op.key]
        return self._item(found[-1]) if found else None

    def _put(self, op: PutOp) -> None:
        site = self._site(op.namespace) or GENERAL
        if op.value is None:
            self.log.forget(site, op.key)
            return
        # the value's own website is kept as written (a namespace label is its slug)
        self.log.record(Trajectory.from_dict({"website": site, **op.value, "id": op.key}))

    def _search(self, op: SearchOp) -> list[SearchItem]:
        items = [self._item(t) for t in self._all(self._site(op.namespace_prefix))]
        items = [i for i in items if value_matches(i.value, op.filter)]
        return items[op.offset : op.offset + op.limit]  # scores stay None: not indexed

    def _namespaces(self) -> list[tuple[str, ...]]:
        return sorted({(TRAJECTORIES, t.website) for t in self._all(None)})
