"""WorkflowFiles: one file per website, provenance sidecar, hand edits, deletes, update log."""

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
    before = store.signature()
    path.write_text(path.read_text() + "\n## c\nnew one\nclick('x')\nclick('y')\n\n## broken\n")
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    assert store.signature() != before
    assert [w.name for w in store.load()] == ["a", "b", "c"]
    assert any("gitlab.txt:" in p and "broken" in p for p in store.problems())


def test_upsert_delete_and_log(tmp_path: Path) -> None:
    store = WorkflowFiles(tmp_path)
    assert store.upsert("map", [_wf("a"), _wf("b")]) == (2, 0)
    assert store.upsert("map", [_wf("b", 3)]) == (0, 1)
    assert [len(w.steps) for w in store.find("b")] == [3]
    assert store.delete("a") == 1
    assert [w.name for w in store.load("map")] == ["b"]
    assert store.delete("b", website="map") == 1
    assert not (tmp_path / "workflows" / "map.txt").exists()
    assert store.delete("nothing") == 0
    store.log_update({"mode": "test", "added": 1})
    assert store.updates()[-1]["mode"] == "test"


def test_person_deleting_a_block_removes_it(tmp_path: Path) -> None:
    store = WorkflowFiles(tmp_path)
    store.save("reddit", [_wf("keep"), _wf("drop")])
    store.load()
    path = tmp_path / "workflows" / "reddit.txt"
    path.write_text("## keep\ndoes keep\nclick('0')\nclick('1')\n")
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    assert [w.name for w in store.load()] == ["keep"]


def test_parallel_upserts_lose_nothing_and_never_collide(tmp_path):
    """Parallel tasks induce at once: two threads must never rename one `.tmp` file."""
    import threading

    store = WorkflowFiles(tmp_path)
    errors: list[BaseException] = []

    def induce(i: int) -> None:
        try:
            for j in range(5):
                store.upsert("research", [_wf(f"find_thing_{i}_{j}")])
        except BaseException as exc:  # noqa: BLE001 - collected for the assertion
            errors.append(exc)

    threads = [threading.Thread(target=induce, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(store.load("research")) == 40  # every thread's every workflow kept
    assert not list((tmp_path / "workflows").glob("*.tmp"))
