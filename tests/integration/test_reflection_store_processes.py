"""Reflection store across real processes: sharing, concurrent writers, kill -9 in mid-save."""

from __future__ import annotations

import multiprocessing
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from core.embeddings import HashingEmbeddings
from memory.reflections.manager import ReflectionManager
from tests.integration import store_fault_child as child
from tests.integration.store_fault_child import writer_text

pytestmark = pytest.mark.integration
WRITER = Path(__file__).with_name("reflection_writer.py")
ROOT = Path(__file__).resolve().parents[2]


def start(home: Path, tag: str, count: int, *extra: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, str(WRITER), str(home), tag, str(count), *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_saved_in_one_process_found_from_another(tmp_path):
    proc = start(tmp_path, "w", 5)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    reader = ReflectionManager.open(tmp_path, HashingEmbeddings())
    assert [r.id for r in reader.get_relevant_reflections("keywx3", k=1)] == ["w-3"]
    # a reader that is already open sees later writes from another process
    proc = start(tmp_path, "late", 1)
    proc.communicate(timeout=120)
    assert reader.get_relevant_reflections("keylatex0", k=1)[0].id == "late-0"


@pytest.fixture(scope="module")
def ctx():
    """Writers fork from a preloaded forkserver: a separate process each, without the seconds
    a fresh interpreter spends importing (on a loaded 2-core machine: most of this file's time)."""
    found = multiprocessing.get_context("forkserver")
    found.set_forkserver_preload(["tests.integration.store_fault_child"])
    return found


def test_four_writers_of_250_lose_nothing(tmp_path, ctx):
    acks = [tmp_path / f"ack{n}.txt" for n in range(4)]
    procs = [
        ctx.Process(target=child.write, args=(str(tmp_path), f"p{n}", 250, False, str(acks[n])))
        for n in range(4)
    ]
    for proc in procs:
        proc.start()
    for proc, ack in zip(procs, acks, strict=True):
        proc.join(600)
        assert proc.exitcode == 0
        assert len(ack.read_text().split()) == 250
    m = ReflectionManager.open(tmp_path, HashingEmbeddings())
    ids = {r.id for r in m.list_reflections()}
    assert len(ids) == 1000 and ids == {f"p{n}-{i}" for n in range(4) for i in range(250)}
    index = m.backend.index
    m.backend.sync()
    in_index = set(index.ids().tolist())
    in_db = {it.seq for it in m.backend.records.items(m.prefix)}
    assert index.ntotal == 1000 and in_index == in_db
    for probe in random.Random(3).sample(sorted(ids), 20):
        tag, i = probe.split("-")
        # hashed words can share a bucket (see writer_text), so probes use the whole
        # text and the record must be among the few best, not always first
        best = m.get_relevant_reflections("\n".join(writer_text(tag, int(i))), k=10)
        assert probe in [r.id for r in best]


@pytest.mark.parametrize("bulk", [False, True], ids=["single", "bulk+index-writes"])
def test_kill_9_mid_save_keeps_every_acknowledged_save(tmp_path, ctx, bulk):
    rng, ack = random.Random(11), tmp_path / "ack.txt"
    ack.touch()
    for round_ in range(6 if bulk else 10):
        args = (str(tmp_path), f"k{round_}", 10**6, bulk, str(ack))
        proc = ctx.Process(target=child.write, args=args)
        proc.start()
        before, waited = len(ack.read_text().split()), time.monotonic()
        while len(ack.read_text().split()) == before:  # wait until it is really saving
            assert proc.is_alive() and time.monotonic() - waited < 120, "the writer never saved"
            time.sleep(0.005)
        time.sleep(rng.uniform(0.0, 0.3))
        os.kill(proc.pid, signal.SIGKILL)
        proc.join(60)
        acknowledged = ack.read_text().split()
        m = ReflectionManager.open(tmp_path, HashingEmbeddings())  # opens after every kill
        have = {r.id for r in m.list_reflections()}
        missing = [i for i in acknowledged if i not in have]
        assert not missing, f"round {round_}: acknowledged saves lost: {missing[:5]}"
        m.close()
    m = ReflectionManager.open(tmp_path, HashingEmbeddings())
    assert m.backend.index.ntotal == m.backend.records.count()
    assert_index_holds_each_records_own_vector(m)
    last_of_round = {i.split("-")[0]: i for i in acknowledged}
    for probe in last_of_round.values():  # findable by its own text, through the manager's API
        tag, i = probe.split("-")[:2]
        found = m.get_relevant_reflections("\n".join(writer_text(tag, int(i))), k=10)
        assert probe in [r.id for r in found], f"{probe} is stored but not found"
    leftovers = [p.name for p in (tmp_path / "memory").iterdir() if p.suffix == ".tmp"]
    assert leftovers == [], "temp files of killed index writes are removed on open"


def assert_index_holds_each_records_own_vector(m: ReflectionManager) -> None:
    """Every record's vector is in the index under its seq, and nothing else is."""
    index = m.backend.index
    items = m.backend.records.items("")
    assert sorted(index.ids().tolist()) == sorted(it.seq for it in items)
    wrong = [
        it.key
        for it in items
        if not np.array_equal(index.vector(it.seq), np.frombuffer(it.embedding, np.float32))
    ]
    assert not wrong, f"index vectors differ from the stored ones for {wrong[:5]}"


def test_real_local_embeddings_find_the_meaningful_match(tmp_path):
    from core.embeddings import CachedEmbeddings, LocalEmbeddings
    from memory.reflections.schema import Reflection, ReflectionJudgment

    emb = CachedEmbeddings(LocalEmbeddings(), name="local:all-MiniLM-L6-v2")
    vec = np.array(emb.embed_query("hello world"))
    assert vec.shape == (384,) and abs(np.linalg.norm(vec) - 1.0) < 1e-4
    m = ReflectionManager.open(tmp_path, emb)
    j = ReflectionJudgment(needs_retry=False, confidence=0.9, reasons=[])
    texts = {
        "air": ("Book a plane ticket to Tokyo", "Compare airlines and fix the dates first."),
        "food": ("Bake sourdough bread", "Let the dough proof overnight in the fridge."),
        "code": ("Fix a failing unit test", "Read the assertion message before editing code."),
    }
    for key, (task, text) in texts.items():
        m.save_reflection(Reflection(id=key, task=task, reflection=text, judgment=j))
    assert m.get_relevant_reflections("reserve a flight to Japan", k=1)[0].id == "air"
    assert m.get_relevant_reflections("my pytest run is red", k=1)[0].id == "code"
    misses = emb.misses
    m.get_relevant_reflections("reserve a flight to Japan", k=1)
    assert emb.misses == misses, "a repeated query is served from the cache"
    m.close()
    with pytest.raises(Exception, match="re-embed"):
        ReflectionManager.open(tmp_path, HashingEmbeddings(384))
    cli = [sys.executable, "main.py", "--home", str(tmp_path), "memory"]
    found = subprocess.run(
        [*cli, "search", "reserve a flight to Japan", "--k", "1"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert found.returncode == 0, found.stderr
    assert "loading the embedding model local:all-MiniLM-L6-v2" in found.stderr
    assert found.stdout.startswith("1. ") and "  air  " in found.stdout
    listed = subprocess.run([*cli, "list"], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert listed.returncode == 0 and listed.stderr == "", "listing loads no model"
    assert len(listed.stdout.splitlines()) == 3
