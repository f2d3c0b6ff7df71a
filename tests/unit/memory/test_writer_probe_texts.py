"""The store fault tests' probe texts (store_fault_child.writer_text) name one record each.

Those tests search a record's own text with 256-bucket hashing embeddings and require the record
in the top 10. When a record's only distinguishing word was its key, every key sharing that
key's bucket (1 in 256) gave a byte-identical vector: equal relevance, so recency ranked the
newer twins first, as the score says it should, and a store of ~4,500 records (about 17 twins
per probe) buried e.g. k2-417 under k9-169, k9-73, … (CI failure of the kill -9 test).
"""

from __future__ import annotations

import numpy as np

from core.embeddings import HashingEmbeddings
from memory.reflections.manager import ReflectionManager
from memory.reflections.schema import Reflection
from tests.integration.store_fault_child import JUDGMENT, writer_text

ROUNDS, PER_ROUND = 10, 600


def _texts() -> list[tuple[str, int, str]]:
    return [
        (f"k{r}", i, "\n".join(writer_text(f"k{r}", i)))
        for r in range(ROUNDS)
        for i in range(PER_ROUND)
    ]


def test_no_two_writer_records_share_a_vector():
    texts = _texts()
    vectors = np.array(HashingEmbeddings().embed_documents([t for _, _, t in texts]))
    unique = np.unique(vectors, axis=0)
    assert len(unique) == len(texts), f"{len(texts) - len(unique)} records have a vector twin"


def test_an_older_round_record_is_found_by_its_own_text_among_newer_rounds():
    """The failing CI case: with the key as its only word, k2-417 had 36 twins here, 26 newer."""
    m = ReflectionManager()
    for r in range(ROUNDS):
        batch = []
        for i in range(PER_ROUND):
            task, lesson = writer_text(f"k{r}", i)
            batch.append(
                Reflection(id=f"k{r}-{i}", task=task, reflection=lesson, judgment=JUDGMENT)
            )
        m.save_many(batch)
    for probe in ["k2-417", "k0-151", "k4-195"]:
        tag, n = probe.split("-")
        found = m.get_relevant_reflections("\n".join(writer_text(tag, int(n))), k=10)
        assert probe in [x.id for x in found], f"{probe} is stored but not found"
