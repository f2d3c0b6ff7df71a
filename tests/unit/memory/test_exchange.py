"""Workflows and trajectories as files: export, import back, and an older home imported once."""

from __future__ import annotations

import json

import pytest
from langgraph.store.memory import InMemoryStore

from memory.agent_memory import AgentMemory
from memory.exchange import export_memory, import_home_once, import_memory
from memory.trajectories import Step, Trajectory, TrajectoryLog
from memory.workflows.files import WorkflowFiles
from memory.workflows.types import Provenance, Workflow


def _filled() -> AgentMemory:
    memory = AgentMemory(InMemoryStore())
    steps = ["click('1')", "click('2')"]
    memory.put_workflows("shop", [Workflow("buy", "buy a thing", steps, Provenance(sources=["r"]))])
    memory.put_workflows("general", [Workflow("search", "search anything", steps)])
    memory.record_trajectory(Trajectory("Buy socks", "shop", [Step("o", "click('1')")], True))
    memory.record_trajectory(Trajectory("Buy hats", "shop", [], False, id="failed"))
    return memory


def test_an_export_imports_back_whole_and_exporting_again_gives_the_same_files(tmp_path):
    memory = _filled()
    moved = export_memory(memory, tmp_path / "a")
    assert (moved.workflows, moved.trajectories) == (2, 2)
    export_memory(memory, tmp_path / "b")
    files = sorted(p.relative_to(tmp_path / "a") for p in (tmp_path / "a").rglob("*.*"))
    assert [str(p) for p in files] == [
        "trajectories/shop.jsonl",
        "workflows/general.meta.json",
        "workflows/general.txt",
        "workflows/shop.meta.json",
        "workflows/shop.txt",
    ]
    for path in files:
        assert (tmp_path / "a" / path).read_bytes() == (tmp_path / "b" / path).read_bytes()
    fresh = AgentMemory(InMemoryStore())
    assert import_memory(fresh, tmp_path / "a").summary()["workflows"] == 2
    shown = {(w.website, w.name, tuple(w.steps)) for w in fresh.workflows(None)}
    assert shown == {(w.website, w.name, tuple(w.steps)) for w in memory.workflows(None)}
    assert fresh.workflows("shop")[0].provenance.sources == ["r"]
    runs = fresh.trajectories("shop", successful_only=False)
    assert sorted(r.task for r in runs) == ["Buy hats", "Buy socks"]


def test_a_bad_trajectory_line_stops_the_import_before_anything_is_saved(tmp_path):
    export_memory(_filled(), tmp_path)
    with (tmp_path / "trajectories" / "shop.jsonl").open("a") as fh:
        fh.write("{not json\n")
    fresh = AgentMemory(InMemoryStore())
    with pytest.raises(ValueError, match=r"shop.jsonl:3"):
        import_memory(fresh, tmp_path)
    assert fresh.workflows(None) == [] and fresh.trajectories(None) == []


def test_a_block_the_format_cannot_read_is_named_and_the_rest_imported(tmp_path):
    export_memory(_filled(), tmp_path)
    shop = tmp_path / "workflows" / "shop.txt"
    shop.write_text(shop.read_text() + "\n## broken\n")
    moved = import_memory(AgentMemory(InMemoryStore()), tmp_path)
    assert moved.workflows == 2 and any("shop.txt" in p and "broken" in p for p in moved.problems)


def test_an_older_home_is_imported_once_and_its_files_left_as_they_were(tmp_path):
    WorkflowFiles(tmp_path).save("shop", [Workflow("buy", "buy a thing", ["a", "b"])])
    TrajectoryLog(tmp_path).save("shop", [Trajectory("Buy", "shop", [], True, id="t1")])
    before = (tmp_path / "workflows" / "shop.txt").read_text()
    store = InMemoryStore()
    moved = import_home_once(store, tmp_path)
    assert moved is not None and (moved.workflows, moved.trajectories) == (1, 1)
    memory = AgentMemory(store)
    memory.delete_workflow("buy", "shop")
    assert import_home_once(store, tmp_path) is None  # once: a deleted workflow stays deleted
    assert memory.workflows(None) == [] and [t.id for t in memory.trajectories("shop")] == ["t1"]
    assert (tmp_path / "workflows" / "shop.txt").read_text() == before
    assert import_home_once(InMemoryStore(), tmp_path / "empty") is None  # nothing to import
    record = store.get(("memory_imports",), "home-files")
    assert record is not None and json.loads(json.dumps(record.value))["workflows"] == 1


def test_an_empty_export_is_a_folder_an_import_reads(tmp_path):
    empty = AgentMemory(InMemoryStore())
    assert export_memory(empty, tmp_path / "none").summary()["workflows"] == 0
    assert (tmp_path / "none").is_dir() and import_memory(empty, tmp_path / "none").workflows == 0


def test_a_listing_is_never_cut_short(tmp_path):
    """More runs than a listing once asked for (10,000): every one is listed and exported."""
    memory = AgentMemory(InMemoryStore())
    for i in range(10_050):
        memory.record_trajectory(Trajectory(f"task {i}", "shop", [], True, id=f"t{i}"))
    assert len(memory.trajectories("shop")) == 10_050
    assert export_memory(memory, tmp_path).trajectories == 10_050
