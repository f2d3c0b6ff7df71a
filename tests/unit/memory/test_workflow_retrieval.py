"""Retrieval: semantic nearest first with scores, random, website filter, cache, rerank hook."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest
from langchain_core.embeddings import Embeddings

from memory.workflows.files import WorkflowFiles
from memory.workflows.retrieval import generative_rerank, relevant_workflows_text, retrieve
from memory.workflows.types import Workflow

TOPICS = ["flight", "hotel", "order", "issue", "map", "forum"]


class TopicEmbeddings(Embeddings):
    """One axis per topic word, so the expected nearest workflow is known exactly."""

    def __init__(self) -> None:
        self.documents = 0
        self.queries = 0

    def _vec(self, text: str) -> list[float]:
        return [float(text.lower().count(t)) + 0.01 for t in TOPICS]

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.documents += len(texts)
        return [self._vec(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        self.queries += 1
        return self._vec(text)


def _wf(name: str, desc: str) -> Workflow:
    return Workflow(name=name, description=desc, steps=["click('1')", "click('2')"])


@pytest.fixture()
def home(tmp_path: Path) -> Path:
    store = WorkflowFiles(tmp_path)
    store.save(
        "travel", [_wf("book_flight", "book a flight"), _wf("book_hotel", "reserve a hotel room")]
    )
    store.save("shopping", [_wf("find_order", "find an order in the order history")])
    store.save("gitlab", [_wf("open_issue", "open an issue")])
    return tmp_path


def test_semantic_returns_nearest_first_with_scores(home: Path) -> None:
    emb = TopicEmbeddings()
    hits = retrieve("which order did I place last", home=home, k=3, mode="semantic", embeddings=emb)
    assert hits[0].workflow.name == "find_order"
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert hits[0].score > 0.9 and hits[-1].score < 0.5
    hits = retrieve("a hotel please", home=home, k=1, mode="semantic", embeddings=emb)
    assert [h.workflow.name for h in hits] == ["book_hotel"]


def test_index_is_cached_and_rebuilt_on_edit(home: Path) -> None:
    emb = TopicEmbeddings()
    relevant_workflows_text("flight", home=home, k=2, embeddings=emb)
    docs = emb.documents
    text = relevant_workflows_text("flight", home=home, k=2, embeddings=emb)
    assert emb.documents == docs and emb.queries == 2  # query embedded once per call
    assert text.startswith("## book_flight\nbook a flight\n")
    path = home / "workflows" / "gitlab.txt"
    path.write_text("## open_map\nopen the map\nclick('m')\nclick('n')\n")
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    hits = retrieve("map", home=home, k=1, embeddings=emb)
    assert hits[0].workflow.name == "open_map"
    assert emb.documents == docs + 1  # only the new workflow was embedded (index.npz cache)


def test_website_filter_and_empty(home: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    emb = TopicEmbeddings()
    hits = retrieve("flight", home=home, k=5, embeddings=emb, website="shopping")
    assert [h.workflow.name for h in hits] == ["find_order"]
    empty = tmp_path_factory.mktemp("empty")
    assert relevant_workflows_text("x", home=empty, k=3, embeddings=emb) == ""


def test_random_mode_and_rerank_hook(home: Path) -> None:
    hits = retrieve("x", home=home, k=2, mode="random", rng=random.Random(1))
    assert len(hits) == 2 and len({h.workflow.name for h in hits}) == 2
    with pytest.raises(ValueError, match="unknown retrieval mode"):
        retrieve("x", home=home, mode="nearest")

    def boost_issue(query: str, hits):  # a caller-supplied scorer decides the order
        return sorted(hits, key=lambda h: h.workflow.name != "open_issue")

    hits = retrieve("flight", home=home, k=1, embeddings=TopicEmbeddings(), rerank=boost_issue)
    assert hits[0].workflow.name == "open_issue"


def test_generative_rerank_prefers_supported_recent(home: Path) -> None:
    store = WorkflowFiles(home)
    ws = store.load("travel")
    ws[1].provenance.sources = ["a", "b", "c", "d", "e"]
    store.save("travel", ws)
    hits = retrieve(
        "book",
        home=home,
        k=2,
        embeddings=TopicEmbeddings(),
        website="travel",
        rerank=generative_rerank(relevance_weight=0.0),
    )
    assert hits[0].workflow.name == "book_hotel"


def test_min_relevance_drops_unrelated_workflows(tmp_path):
    from core.embeddings import HashingEmbeddings
    from memory.workflows.files import WorkflowFiles
    from memory.workflows.retrieval import retrieve
    from memory.workflows.types import Provenance, Workflow

    steps = ["click('a')", "click('b')"]
    WorkflowFiles(tmp_path).save(
        "shop",
        [
            Workflow("search_product", "search a product by name", steps, Provenance()),
            Workflow("checkout_cart", "pay for the items in the cart", steps, Provenance()),
        ],
    )
    emb = HashingEmbeddings(256)
    kw = {"home": tmp_path, "k": 2, "embeddings": emb}
    assert len(retrieve("search product name", **kw)) == 2
    kept = retrieve("search product name", min_relevance=0.3, **kw)
    assert [h.workflow.name for h in kept] == ["search_product"]
