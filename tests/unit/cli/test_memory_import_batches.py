"""`memory import` in batches: a killed import keeps the batches it stored, importing the same
file again stores only the rest, and a long import says how far it got."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

import cli.memory_io as memory_io
from main import main
from tests.conftest import ROOT

HASH = ["--embedding-model", "hashing"]

# The CLI in a child process whose embedder takes a second per batch, so a kill lands mid-import.
SLOW_CHILD = """
import sys, time
from core.embeddings import HashingEmbeddings
from core.models import Models
import main

class Slow(HashingEmbeddings):
    def embed_documents(self, texts):
        time.sleep(1.0)
        return super().embed_documents(texts)

sys.exit(main.main(sys.argv[1:], models=Models.fixed(embeddings=Slow())))
"""


def record(i: int, *, with_id: bool = True, text: str = "Check the dates first.") -> str:
    fields = {
        "task": f"task {i} about topic {i % 7}",
        "reflection": text,
        "judgment": {"needs_retry": False, "confidence": 0.9, "reasons": ["ok"]},
    }
    return json.dumps({"id": f"r{i}", **fields} if with_id else fields)


def write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def memory(home: Path, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["--home", str(home), "memory", *argv, *HASH])
    out, err = capsys.readouterr()
    return code, out, err


def stored_ids(home: Path, capsys: pytest.CaptureFixture[str]) -> list[str]:
    code, out, _ = memory(home, capsys, "list", "--json")
    assert code == 0
    return [r["id"] for r in json.loads(out)]


def test_a_killed_import_keeps_its_batches_and_a_rerun_completes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    batch = memory_io.IMPORT_BATCH
    total = 4 * batch + 10
    # every tenth line has no id: a rerun must find it under the same derived id
    src = write(tmp_path / "many.jsonl", [record(i, with_id=i % 10 != 0) for i in range(total)])
    home = tmp_path / "home"
    argv = [sys.executable, "-c", SLOW_CHILD, "--home", str(home), "memory", "import", str(src)]
    with subprocess.Popen(
        argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    ) as child:
        try:
            assert child.stderr is not None
            told = []
            for line in child.stderr:
                told.append(line)
                if line.startswith(f"memory import: {batch:,} of {total:,} stored"):
                    os.kill(child.pid, signal.SIGKILL)  # the next batch is being embedded
                    break
            assert child.wait(timeout=60) == -signal.SIGKILL, told
        finally:
            child.kill()  # a no-op once it ended; ends it if an assertion did not wait
    kept = stored_ids(home, capsys)
    assert batch <= len(kept) < total and len(kept) % batch == 0, len(kept)
    code, out, _ = memory(home, capsys, "import", str(src), "--json")
    assert code == 0
    done = json.loads(out)
    assert done["already_imported"] == len(kept) and done["imported"] == total - len(kept)
    assert not set(done["ids"]) & set(kept)
    after = stored_ids(home, capsys)
    assert len(after) == len(set(after)) == total
    assert {f"r{i}" for i in range(total) if i % 10} <= set(after)


def test_importing_the_same_file_again_stores_nothing_twice(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    same = record(1, with_id=False)
    src = write(tmp_path / "in.jsonl", [record(0), same, same, record(2, with_id=False)])
    code, out, _ = memory(tmp_path, capsys, "import", str(src), "--json")
    assert code == 0 and json.loads(out)["imported"] == 4  # equal lines stay two records
    first = stored_ids(tmp_path, capsys)
    code, out, _ = memory(tmp_path, capsys, "import", str(src))
    assert code == 0
    assert "imported 0 reflections" in out and "4 already imported from this file" in out
    assert stored_ids(tmp_path, capsys) == first


def test_a_line_changed_since_its_import_needs_replace(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = write(tmp_path / "in.jsonl", [record(0), record(1)])
    assert memory(tmp_path, capsys, "import", str(src))[0] == 0
    write(src, [record(0), record(1, text="Read the whole table.")])
    code, _, err = memory(tmp_path, capsys, "import", str(src))
    assert code == 2 and "1 ids are already in namespace 'default' ('r1')" in err
    code, out, _ = memory(tmp_path, capsys, "import", str(src), "--replace", "--json")
    done = json.loads(out)
    assert code == 0 and (done["imported"], done["replaced"], done["already_imported"]) == (1, 1, 1)
    code, out, _ = memory(tmp_path, capsys, "show", "r1", "--json")
    assert json.loads(out)["reflection"] == "Read the whole table."


def test_the_same_file_imported_with_other_trust_needs_replace(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = write(tmp_path / "in.jsonl", [record(0)])
    assert memory(tmp_path, capsys, "import", str(src))[0] == 0
    code, _, err = memory(tmp_path, capsys, "import", str(src), "--trust")
    assert code == 2 and "--replace" in err


def test_a_long_import_says_how_far_it_got(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(memory_io, "IMPORT_BATCH", 2)
    src = write(tmp_path / "in.jsonl", [record(i) for i in range(5)])
    code, _, err = memory(tmp_path, capsys, "import", str(src), "--json")
    assert code == 0
    assert err.splitlines() == [
        "memory import: 5 valid records; storing 5 in batches of 2 (if stopped, the stored "
        "batches stay: run the import again)",
        "memory import: 2 of 5 stored",
        "memory import: 4 of 5 stored",
        "memory import: 5 of 5 stored",
    ]
    write(src, [record(i) for i in range(8)])
    code, _, err = memory(tmp_path, capsys, "import", str(src))
    assert code == 0 and err.splitlines()[0].startswith(
        "memory import: 8 valid records, 5 already stored by an earlier import; storing 3 "
    )


def test_a_short_import_says_nothing_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = write(tmp_path / "in.jsonl", [record(i) for i in range(3)])
    code, _, err = memory(tmp_path, capsys, "import", str(src))
    assert code == 0 and err == ""
