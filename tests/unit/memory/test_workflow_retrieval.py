"""Retrieval from a store: semantic nearest first with scores, random, website filter, rerank."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from langchain_core.embeddings import Embeddings

from memory.agent_memory import AgentMemory
from memory.stores.sqlite_store import SqliteStore
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
def emb() -> TopicEmbeddings:
    return TopicEmbeddings()


@pytest.fixture()
def home(tmp_path: Path, emb: TopicEmbeddings) -> Iterator[SqliteStore]:
    store = SqliteStore.open(tmp_path, emb)
    memory = AgentMemory(store)
    memory.put_workflows(
        "travel", [_wf("book_flight", "book a flight"), _wf("book_hotel", "reserve a hotel room")]
    )
    memory.put_workflows("shopping", [_wf("find_order", "find an order in the order history")])
    memory.put_workflows("gitlab", [_wf("open_issue", "open an issue")])
    yield store
    store.close()


def test_semantic_returns_nearest_first_with_scores(home: SqliteStore) -> None:
    hits = retrieve("which order did I place last", store=home, k=3, mode="semantic")
    assert hits[0].workflow.name == "find_order"
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert hits[0].score > 0.9 and hits[-1].score < 0.5
    hits = retrieve("a hotel please", store=home, k=1, mode="semantic")
    assert [h.workflow.name for h in hits] == ["book_hotel"]


def test_workflows_are_embedded_once_and_a_later_one_is_found(
    home: SqliteStore, emb: TopicEmbeddings
) -> None:
    relevant_workflows_text("flight", store=home, k=2)
    docs, queries = emb.documents, emb.queries
    text = relevant_workflows_text("flight", store=home, k=2)
    assert emb.documents == docs and emb.queries == queries + 1  # the query, once a call
    assert text.startswith("## book_flight\nbook a flight\n")
    AgentMemory(home).put_workflows("gitlab", [_wf("open_map", "open the map")])
    hits = retrieve("map", store=home, k=1)
    assert hits[0].workflow.name == "open_map"
    assert emb.documents == docs + 1  # only the new workflow was embedded


def test_website_filter_and_empty(home: SqliteStore, tmp_path_factory) -> None:
    hits = retrieve("flight", store=home, k=5, website="shopping")
    assert [h.workflow.name for h in hits] == ["find_order"]
    empty = SqliteStore.open(tmp_path_factory.mktemp("empty"), TopicEmbeddings())
    assert relevant_workflows_text("x", store=empty, k=3) == ""
    empty.close()


def test_random_first_and_the_rerank_hook(home: SqliteStore) -> None:
    hits = retrieve("x", store=home, k=2, mode="random", rng=random.Random(1))
    assert len(hits) == 2 and len({h.workflow.name for h in hits}) == 2
    first = relevant_workflows_text("hotel", store=home, k=1, semantic=False)
    assert first.startswith("## book_flight")  # stored order, whatever the query says
    with pytest.raises(ValueError, match="unknown retrieval mode"):
        retrieve("x", store=home, mode="nearest")

    def boost_issue(query: str, hits):  # a caller-supplied scorer decides the order
        return sorted(hits, key=lambda h: h.workflow.name != "open_issue")

    hits = retrieve("flight", store=home, k=1, rerank=boost_issue)
    assert hits[0].workflow.name == "open_issue"


def test_generative_rerank_prefers_supported_recent(home: SqliteStore) -> None:
    memory = AgentMemory(home)
    ws = memory.workflows("travel")
    ws[1].provenance.sources = ["a", "b", "c", "d", "e"]
    memory.put_workflows("travel", ws)
    hits = retrieve(
        "book",
        store=home,
        k=2,
        website="travel",
        rerank=generative_rerank(relevance_weight=0.0),
    )
    assert hits[0].workflow.name == "book_hotel"


def test_min_relevance_drops_unrelated_workflows(tmp_path):
    from core.embeddings import HashingEmbeddings
    from memory.workflows.types import Provenance

    steps = ["click('a')", "click('b')"]
    store = SqliteStore.open(tmp_path, HashingEmbeddings(256))
    AgentMemory(store).put_workflows(
        "shop",
        [
            Workflow("search_product", "search a product by name", steps, Provenance()),
            Workflow("checkout_cart", "pay for the items in the cart", steps, Provenance()),
        ],
    )
    assert len(retrieve("search product name", store=store, k=2)) == 2
    kept = retrieve("search product name", store=store, k=2, min_relevance=0.3)
    assert [h.workflow.name for h in kept] == ["search_product"]
    store.close()
