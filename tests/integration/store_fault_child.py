"""Child processes for the store's fault tests, started from a preloaded forkserver (no import
cost per child), each of which is SIGKILLed — by the parent at a random moment, or by itself at
a chosen point.

An acknowledged save is a line in the `ack` file, appended and flushed after save returned: the
kernel keeps it when the process is killed, so the parent knows exactly what was acknowledged.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

from core.embeddings import HashingEmbeddings
from memory.reflections.manager import ReflectionManager
from memory.reflections.schema import Reflection, ReflectionJudgment
from tests.unit.fakes import ScriptedChatModel

JUDGMENT = ReflectionJudgment(needs_retry=False, confidence=0.5, reasons=[])


def die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def writer_text(tag: str, i: int) -> tuple[str, str]:
    """(task, reflection) of a writer's i-th record: what a probe searches for.

    The tests use 256-bucket hashing embeddings, where two words can share a bucket, and probes
    search with a record's whole text. So fillers carry exactly one word ("filler"): a filler
    once carried its counter, whose bucket was that of the key `keyk5x8`, and 51 such fillers
    outranked the record. And a record carries four words of its own, not one: with the key
    alone, 1 key in 256 shared its bucket, so ~17 of ~4,500 records had the probe's very vector
    (equal relevance, and recency ranks the newer first), and `k2-417` fell out of the top 10
    under twins from later rounds. Four words make a twin a ~1e-9 chance per pair.
    """
    key = f"key{tag}x{i}"  # searched alone by some tests
    return f"writer task {key}", f"lesson from writer {key} {tag}a{i} {tag}b{i} {tag}c{i}"


def write(home: str, tag: str, count: int, bulk: bool, ack: str) -> None:
    """Save `count` reflections (each with 300 fillers when `bulk`, so index files get written
    often and kills land there too); append each id to `ack` once its save returned."""
    manager = ReflectionManager.open(home, HashingEmbeddings())
    with open(ack, "a", buffering=1) as out:
        for i in range(count):
            task, lesson = writer_text(tag, i)
            r = Reflection(id=f"{tag}-{i}", task=task, reflection=lesson, judgment=JUDGMENT)
            if bulk:  # fillers carry one word only: see writer_text
                fillers = [
                    Reflection(
                        id=f"{tag}-{i}-f{j}", task="filler", reflection="x", judgment=JUDGMENT
                    )
                    for j in range(300)
                ]
                manager.save_many([*fillers, r])
            else:
                manager.save_reflection(r)
            out.write(r.id + "\n")


def scripted_model(die_on: str | None) -> ScriptedChatModel:
    """Four insights for a group of lessons; dies instead of answering the `die_on` schema (if
    given)."""

    def respond(prompt, title, tools, messages):
        if title == die_on:
            die()
        return {
            "task_kind": "book a flight",
            "insights": [
                "Set the dates first.",
                "Compare two sites.",
                "Read the fare rules before paying.",
                "Book the return leg in the same search.",
            ],
        }

    return ScriptedChatModel(responder=respond, calls=[])


def consolidate(home: str, die_at: str) -> None:
    """Consolidate the store's pending batch, dying at `die_at`: "model" (while the model is
    asked), "store" (inside the transaction that stores insights and marks the batch, before
    it commits) or "committed" (right after that commit, before the index is updated)."""
    manager = ReflectionManager.open(home, HashingEmbeddings(), consolidation_threshold=0.5)
    manager.chat_model = scripted_model("Insights" if die_at == "model" else None)
    records = manager.backend.records
    if die_at == "store":
        real_set = records._meta_set

        def meta_then_die(key: str, value: str) -> None:
            real_set(key, value)
            if key.startswith("consolidated_seq:"):
                die()

        records._meta_set = meta_then_die  # type: ignore[method-assign]
    if die_at == "committed":
        real_put = records.put_many_claiming

        def put_then_die(*args, **kwargs):
            real_put(*args, **kwargs)
            die()

        records.put_many_claiming = put_then_die  # type: ignore[method-assign]
    manager.maybe_consolidate()


def install_index_and_die(home: str) -> None:
    """Save 10 more reflections, then write the index file and die between installing it and
    recording its checksum (the recorded one is the older file's)."""
    manager = ReflectionManager.open(home, HashingEmbeddings())
    manager.save_many(
        [Reflection(task=f"late {i}", reflection="x", judgment=JUDGMENT) for i in range(10)]
    )
    real = os.replace

    def replace_then_die(src, dst) -> None:
        real(src, dst)
        if Path(dst).suffix == ".faiss":
            die()

    os.replace = replace_then_die  # type: ignore[assignment]
    manager.backend.save_index()
