"""`eval multihop` end to end on real parts: the three files pooled into one BM25 corpus, every
arm (one retrieval, IRCoT, the reflective graph) on the fast test model, one question of each
dataset, then resumed; the subject is the benchmark's wiring, not the answers."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from core.model_catalogue import TEST_MODEL
from tests.conftest import ROOT

pytestmark = pytest.mark.integration
ARMS = ("rag", "ircot", "reflective")


def _eval(out, *extra: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "main.py", "eval", "multihop", "--part", "tune", "--limit", "1"]
    command += ["--arms", ",".join(ARMS), "--model", f"local:{TEST_MODEL}", "--out", str(out)]
    return subprocess.run(
        [*command, *extra], cwd=ROOT, capture_output=True, text=True, timeout=1500
    )


def test_every_arm_answers_every_dataset_from_the_pooled_corpus_and_resumes(tmp_path):
    done = _eval(tmp_path / "out", "--json")
    assert done.returncode == 0, done.stderr[-3000:]
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    assert summary["questions"] == {"hotpotqa": 1, "2wiki": 1, "musique": 1}
    for group in ("hotpotqa", "2wiki", "musique", "all"):
        for arm in ARMS:
            numbers = summary["by_dataset"][group][arm]
            assert numbers["n"] == (3 if group == "all" else 1), (group, arm)
            assert numbers["errors"] == 0, (group, arm, numbers)
    every = summary["by_dataset"]["all"]
    assert every["rag"]["calls"] == 1 and every["ircot"]["calls"] >= 2  # steps, then a reading
    assert every["reflective"]["calls"] >= 2  # goal setting, then at least one hop
    records = {
        arm: [json.loads(line) for line in (tmp_path / "out" / arm / "results.jsonl").open()]
        for arm in ARMS
    }
    for arm, rows in records.items():  # what each read is named in the pooled corpus
        assert all(r["read"] and r["read"][0].startswith("passages.jsonl:") for r in rows), arm
    # how each found its answer: its chain's hops, or (the tiny model chose a longer form) its plan
    assert all(r["path"]["chain"] or r["path"]["tasks"] for r in records["reflective"])
    assert (tmp_path / "out" / "summary.json").is_file()
    again = _eval(tmp_path / "out")  # resumed: nothing left to answer, the same table
    assert again.returncode == 0 and "0 to run" in again.stderr, again.stderr[-2000:]
    assert "recall" in again.stdout and "musique" in again.stdout
