"""bench/reflection_store.py on a tiny size: real texts, the model-free embedder, IVF forced on."""

from __future__ import annotations

import json

import pytest

from bench import reflection_store as bench


@pytest.fixture
def in_process(monkeypatch):
    """Children run in this process (the real bench starts one per step for clean memory)."""

    def run_child(kind, n, workdir, argv):
        args = bench.parse([*argv, "--child", kind, "--n", str(n), "--workdir", str(workdir)])
        return json.loads(json.dumps(bench.child(args)))

    monkeypatch.setattr(bench, "run_child", run_child)


def test_the_bench_prints_one_json_object_per_size(tmp_path, capsys, in_process):
    argv = [
        "--sizes",
        "1200",
        "--texts",
        "400",
        "--queries",
        "20",
        "--reps",
        "20",
        "--appends",
        "10",
        "--embeddings",
        "hashing",
        "--ann-threshold",
        "1000",
        "--original-max",
        "1200",
        "--cache",
        str(tmp_path / "cache"),
        "--workdir",
        str(tmp_path / "work"),
        "--json",
    ]
    bench.main(argv)
    (row,) = json.loads(capsys.readouterr().out)
    assert list(row)[:5] == list(bench.KEYS) and row["size"] == 1200
    assert row["index_kind"] == "ivf" and row["texts"] == 400 and row["queries"] == 20
    assert 0.0 <= row["recall_at_3"] <= 1.0
    assert row["append_p50_ms"] > 0 and row["ann_top3_p50_ms"] > 0 and row["exact_top3_p50_ms"] > 0
    assert row["original_append_ms"] > 0 and "append_ratio_original_over_ours" in row
    assert row["text_sources"] == {"hotpotqa+webarena+awm": 400}
    assert list((tmp_path / "cache").glob("emb-hashing_384-*.npy")), "embeddings are cached"


def test_stored_vectors_are_the_texts_then_noisy_copies():
    import numpy as np

    from bench.store_scale import stored_vectors

    base = np.eye(4, dtype=np.float32)
    vecs = stored_vectors(10, base, noise=0.2)
    assert np.array_equal(vecs[:4], base)
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    assert 0.9 < float(vecs[5] @ base[1]) < 1.0, "a copy stays near its text, not on it"
    assert np.array_equal(stored_vectors(3, base, 0.2, start=5), vecs[5:8]), "deterministic"
