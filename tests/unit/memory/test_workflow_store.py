"""WorkflowFiles, the export format: one file per website, provenance sidecar, hand edits."""

from __future__ import annotations

import os
from pathlib import Path

from memory.workflows.files import WorkflowFiles
from memory.workflows.types import Provenance, Workflow


def _wf(name: str, steps: int = 2) -> Workflow:
    return Workflow(
        name=name, description=f"does {name}", steps=[f"click('{i}')" for i in range(steps)]
    )


def test_save_load_and_provenance(tmp_path: Path) -> None:
    store = WorkflowFiles(tmp_path)
    w = _wf("open_orders")
    w.provenance = Provenance(sources=["t1"], origin="online-rule")
    store.save("shopping", [w])
    text = (tmp_path / "workflows" / "shopping.txt").read_text()
    assert text == "## open_orders\ndoes open_orders\nclick('0')\nclick('1')\n"
    fresh = WorkflowFiles(tmp_path).load()
    assert [x.name for x in fresh] == ["open_orders"]
    assert fresh[0].provenance.sources == ["t1"] and fresh[0].website == "shopping"
    assert fresh[0].provenance.origin == "online-rule"


def test_hand_edits_are_picked_up_by_mtime(tmp_path: Path) -> None:
    store = WorkflowFiles(tmp_path)
    store.save("gitlab", [_wf("a"), _wf("b")])
    assert len(store.load()) == 2
    path = tmp_path / "workflows" / "gitlab.txt"
    path.write_text(path.read_text() + "\n## c\nnew one\nclick('x')\nclick('y')\n\n## broken\n")
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    assert [w.name for w in store.load()] == ["a", "b", "c"]
    assert any("gitlab.txt:" in p and "broken" in p for p in store.problems())
    store.save("gitlab", [])  # an empty website leaves no file behind
    assert not path.exists() and store.load() == []


def test_person_deleting_a_block_removes_it(tmp_path: Path) -> None:
    store = WorkflowFiles(tmp_path)
    store.save("reddit", [_wf("keep"), _wf("drop")])
    store.load()
    path = tmp_path / "workflows" / "reddit.txt"
    path.write_text("## keep\ndoes keep\nclick('0')\nclick('1')\n")
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    assert [w.name for w in store.load()] == ["keep"]


def test_parallel_saves_never_collide(tmp_path):
    """Two exports at once must never rename one `.tmp` file; the last save stands whole."""
    import threading

    store = WorkflowFiles(tmp_path)
    errors: list[BaseException] = []

    def export(i: int) -> None:
        try:
            for j in range(5):
                store.save("research", [_wf(f"find_thing_{i}_{j}"), _wf("shared")])
        except BaseException as exc:  # noqa: BLE001 - collected for the assertion
            errors.append(exc)

    threads = [threading.Thread(target=export, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert [w.name for w in WorkflowFiles(tmp_path).load("research")][1:] == ["shared"]
    assert not list((tmp_path / "workflows").glob(".*.tmp"))
