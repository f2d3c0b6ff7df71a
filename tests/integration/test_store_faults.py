"""The store under SIGKILL, at random moments mid-save and at chosen points (inside
consolidation, between installing an index file and recording its checksum). Children fork
from a preloaded forkserver, so a kill round costs milliseconds, not an interpreter start.
Damaged files and hostile imports: test_store_hostile_input.py; the summary line of both:
tests/integration/conftest.py."""

from __future__ import annotations

import multiprocessing
import os
import random
import signal
import time
from pathlib import Path

import numpy as np
import pytest

from core.embeddings import HashingEmbeddings
from memory.reflections.manager import ReflectionManager
from memory.reflections.schema import Reflection, ReflectionJudgment
from tests.integration import store_fault_child as child

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]
HASH = ["--embedding-model", "hashing"]


@pytest.fixture(scope="module")
def ctx():
    found = multiprocessing.get_context("forkserver")
    found.set_forkserver_preload(["tests.integration.store_fault_child"])
    return found


def killed(ctx, target, *args) -> None:
    """Run target(*args) in a child that must end by SIGKILL (its own or ours)."""
    proc = ctx.Process(target=target, args=args)
    proc.start()
    proc.join(120)
    assert proc.exitcode == -signal.SIGKILL, f"{target.__name__} ended with {proc.exitcode}"


def assert_consistent(m: ReflectionManager) -> None:
    """The index holds exactly the records' vectors, and no temp file is left."""
    items = m.backend.records.items("")
    assert sorted(m.backend.index.ids().tolist()) == sorted(it.seq for it in items)
    for it in items[-50:]:
        assert np.array_equal(m.backend.index.vector(it.seq), np.frombuffer(it.embedding, "f4"))
    assert not list(Path(m.backend.records.path).parent.glob(".*.tmp"))


@pytest.mark.parametrize("bulk", [False, True], ids=["single", "bulk+index-writes"])
def test_random_kills_mid_save_lose_no_acknowledged_save(tmp_path, ctx, tally, bulk):
    rng, ack = random.Random(5), tmp_path / "ack.txt"
    ack.touch()
    for round_ in range(5):
        proc = ctx.Process(
            target=child.write, args=(str(tmp_path), f"k{round_}", 10**6, bulk, str(ack))
        )
        proc.start()
        start, before = time.monotonic(), len(ack.read_text().split())
        while len(ack.read_text().split()) == before:  # wait until it really saves
            assert proc.is_alive() and time.monotonic() - start < 60, "the writer never saved"
            time.sleep(0.005)
        time.sleep(rng.uniform(0.0, 0.25))
        os.kill(proc.pid, signal.SIGKILL)
        proc.join(30)
        tally["kills"] += 1
        m = ReflectionManager.open(tmp_path, HashingEmbeddings())
        have = {r.id for r in m.list_reflections()}
        lost = [i for i in ack.read_text().split() if i not in have]
        tally["lost"] += len(lost)
        assert not lost, f"round {round_}: acknowledged saves lost: {lost[:5]}"
        assert_consistent(m)
        last = ack.read_text().split()[-1]
        tag, i = last.split("-")
        probe = "\n".join(child.writer_text(tag, int(i)))
        assert last in [r.id for r in m.get_relevant_reflections(probe, k=10)]
        m.close()


@pytest.mark.parametrize("die_at", ["model", "store", "committed"])
def test_a_kill_inside_consolidation_neither_loses_nor_repeats_the_batch(
    tmp_path, ctx, tally, die_at
):
    m = ReflectionManager.open(tmp_path, HashingEmbeddings())
    j = ReflectionJudgment(needs_retry=True, confidence=0.7, reasons=[])
    m.save_many(
        [
            Reflection(
                task=f"flight {i}", reflection="Set dates first.", judgment=j, importance=0.9
            )
            for i in range(3)
        ]
    )
    m.close()
    killed(ctx, child.consolidate, str(tmp_path), die_at)
    tally["kills"] += 1
    m = ReflectionManager.open(tmp_path, HashingEmbeddings(), consolidation_threshold=0.5)
    stored_by_child = len(m.list_reflections(kind="insight"))
    assert stored_by_child == (4 if die_at == "committed" else 0)
    m.chat_model = child.scripted_model(None)
    again = m.maybe_consolidate()
    assert len(again) == (0 if die_at == "committed" else 4)
    assert len(m.list_reflections(kind="insight")) == 4, "the batch was consolidated once"
    assert_consistent(m)


def test_a_kill_between_installing_the_index_and_recording_its_checksum(
    tmp_path, ctx, tally, caplog
):
    m = ReflectionManager.open(tmp_path, HashingEmbeddings())
    j = ReflectionJudgment(needs_retry=False, confidence=0.5, reasons=[])
    m.save_many(
        [Reflection(task=f"hotel {i}", reflection="Compare.", judgment=j) for i in range(50)]
    )
    m.close()
    killed(ctx, child.install_index_and_die, str(tmp_path))
    tally["kills"] += 1
    with caplog.at_level("WARNING"):
        m = ReflectionManager.open(tmp_path, HashingEmbeddings())
    assert len(m.list_reflections()) == 60
    assert "damaged or was changed" in caplog.text, "the installed file did not match"
    assert_consistent(m)
