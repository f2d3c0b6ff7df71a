"""The vector index: exact while small, IVF when large, retrained as it grows; its file on disk
(checksum, temp files, stale files) and compaction of dead vectors."""

from __future__ import annotations

import logging
import subprocess
import sys

import numpy as np
import pytest

from core.embeddings import HashingEmbeddings
from memory.engine.backend import DB_NAME, MemoryBackend
from memory.engine.records import RecordTable
from memory.engine.rows import NewItem
from memory.engine.vector_index import VectorIndex, nlist_for

DIM = 16


def clustered(n: int, seed: int = 0, centers: int = 40) -> np.ndarray:
    """Unit vectors around a few centres, like real embeddings (random ones have no structure)."""
    rng = np.random.default_rng(seed)
    middle = rng.standard_normal((centers, DIM)).astype(np.float32)
    vecs = middle[rng.integers(0, centers, n)] + 0.3 * rng.standard_normal((n, DIM))
    return (vecs / np.linalg.norm(vecs, axis=1, keepdims=True)).astype(np.float32)


def exact_top(vectors: np.ndarray, seqs: np.ndarray, query: np.ndarray, k: int) -> set[int]:
    return set(seqs[np.argsort(-(vectors @ query))[:k]].tolist())


def test_exact_until_the_threshold_then_ivf_retrained_as_it_grows():
    index = VectorIndex(DIM, ann_threshold=1000)
    vecs = clustered(17_000)
    seqs = np.arange(1, vecs.shape[0] + 1, dtype=np.int64)
    index.add(seqs[:999], vecs[:999])
    assert index.kind == "exact"
    index.add(seqs[999:1000], vecs[999:1000])
    assert index.kind == "ivf" and index.faiss_index.nlist == nlist_for(1000) == 64
    for start in range(1000, 17_000, 4000):
        index.add(seqs[start : start + 4000], vecs[start : start + 4000])
    assert index.faiss_index.nlist == nlist_for(17_000) == 130, "retrained at 4x the size"
    assert sorted(index.ids().tolist()) == seqs.tolist()
    assert np.array_equal(index.vector(1234), vecs[1233])
    queries = clustered(50, seed=1)
    recall = np.mean(
        [len({s for s, _ in index.search(q, 3)} & exact_top(vecs, seqs, q, 3)) / 3 for q in queries]
    )
    assert recall >= 0.9


def test_build_trains_once_at_the_final_size_and_exhaustive_search_is_exact():
    vecs = clustered(5000)
    seqs = np.arange(10, 5010, dtype=np.int64)
    index = VectorIndex(DIM, ann_threshold=1000, nprobe=1)
    index.build(seqs, vecs)
    assert index.kind == "ivf" and index.faiss_index.nlist == nlist_for(5000)
    assert index.covered_seq == 5009
    q = clustered(1, seed=7)[0]
    best = [s for s, _ in index.search(q, 5, exhaustive=True)]
    assert set(best) == exact_top(vecs, seqs, q, 5)
    assert index.remove(np.array([best[0], 999_999])) == 1
    assert best[0] not in {s for s, _ in index.search(q, 5, exhaustive=True)}


class TableEmbeddings(HashingEmbeddings):
    """Vectors looked up by text (the store's cost without a model); unknown texts hash."""

    def __init__(self, table: dict[str, np.ndarray]) -> None:
        super().__init__(DIM, name="table")
        self.table = table

    def embed_documents(self, texts):
        return [self.table[t].tolist() if t in self.table else self._vector(t) for t in texts]

    def embed_query(self, text):
        return self.embed_documents([text])[0]


def filled_backend(folder, n: int, ann_threshold: int = 500) -> tuple[MemoryBackend, dict]:
    vecs = clustered(n)
    table = {f"text {i}": vecs[i] for i in range(n)}
    backend = MemoryBackend(
        RecordTable(folder / DB_NAME), TableEmbeddings(table), folder, ann_threshold=ann_threshold
    )
    backend.put_many([NewItem("a", f"k{i}", {"i": i}, text=f"text {i}") for i in range(n)])
    return backend, table


def test_an_ivf_index_is_saved_checked_and_reopened(tmp_path):
    backend, table = filled_backend(tmp_path, 2000)
    backend.close()
    again = MemoryBackend(
        RecordTable(tmp_path / DB_NAME), TableEmbeddings(table), tmp_path, ann_threshold=500
    )
    assert again.index.kind == "ivf" and again.index.ntotal == 2000 and again.index.unsaved == 0
    hits = again.search("a", "text 17", 3)
    assert hits[0].light.seq == again.records.get("a", "k17").seq


def test_a_small_namespace_the_ann_lists_miss_is_still_found(tmp_path):
    backend, table = filled_backend(tmp_path, 2000)
    backend.index.faiss_index.nprobe = 1  # the query's nearest list holds none of "b"'s items
    far = -table["text 5"]
    table["far one"], table["far two"] = far, far
    backend.put_many([NewItem("b", "x", {}, text="far one"), NewItem("b", "y", {}, text="far two")])
    found = backend.search("b", "text 5", 3)
    assert sorted(h.light.namespace for h in found) == ["b", "b"]


def test_a_changed_index_file_is_detected_and_rebuilt(tmp_path, caplog):
    backend, table = filled_backend(tmp_path, 300)
    backend.close()
    (path,) = tmp_path.glob("index.*.faiss")
    data = bytearray(path.read_bytes())
    data[-200:-196] = np.float32(0.5).tobytes()  # one vector component, same file size
    path.write_bytes(bytes(data))
    with caplog.at_level(logging.WARNING):
        again = MemoryBackend(RecordTable(tmp_path / DB_NAME), TableEmbeddings(table), tmp_path)
    assert "damaged or was changed" in caplog.text
    for item in again.records.items("a")[-5:]:  # the rebuilt index holds the records' vectors
        assert np.array_equal(again.index.vector(item.seq), np.frombuffer(item.embedding, "f4"))


def test_temp_files_of_dead_writers_and_other_stores_indexes_are_removed(tmp_path):
    backend, table = filled_backend(tmp_path, 50)
    backend.close()
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        text=True,
        capture_output=True,
        check=True,
    ).stdout.strip()
    (path,) = tmp_path.glob("index.*.faiss")
    killed = tmp_path / f".{path.name}.{dead}.tmp"
    live = tmp_path / f".{path.name}.1.tmp"  # pid 1 is alive: a writer still at work
    stale = tmp_path / "index.0123456789abcdef.faiss"  # from a database since replaced
    for p in (killed, live, stale):
        p.write_bytes(b"x" * 100)
    MemoryBackend(RecordTable(tmp_path / DB_NAME), TableEmbeddings(table), tmp_path)
    assert not killed.exists() and not stale.exists() and live.exists() and path.exists()


@pytest.mark.parametrize("how", ["delete", "replace"])
def test_dead_vectors_are_compacted_once_they_outnumber_live_ones(tmp_path, how):
    backend, table = filled_backend(tmp_path, 100, ann_threshold=10_000)
    for i in range(60):
        if how == "delete":
            backend.records.delete("a", f"k{i}")
        else:
            backend.put_many([NewItem("a", f"k{i}", {"again": i}, text=f"text {i}")])
    backend.sync()
    expected_total = 100 if how == "delete" else 160  # 60 dead < 100 live: not yet
    assert backend.index.ntotal == expected_total
    for i in range(60, 100) if how == "delete" else range(100):  # now 160 dead
        if how == "delete":
            backend.records.delete("a", f"k{i}")
        else:
            backend.put_many([NewItem("a", f"k{i}", {"again": i}, text=f"text {i}")])
    backend.close()
    again = MemoryBackend(RecordTable(tmp_path / DB_NAME), TableEmbeddings(table), tmp_path)
    live = again.records.vector_count()
    assert again.index.ntotal == live == (0 if how == "delete" else 100)
    assert sorted(again.index.ids().tolist()) == sorted(again.records.vector_seqs().tolist())
