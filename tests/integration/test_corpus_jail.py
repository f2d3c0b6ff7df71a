"""The corpus is a jail, end to end: a corpus folder holding links out of it (to /etc/passwd, to
a file and to a folder outside) is searched by a whole `main.py run` on a scripted model, and
nothing from outside reaches the model's prompts, the answer, the progress lines or any file
the run saves (checkpoints, trajectories, memory). The control runs the same corpus with the
outside file copied in: its text does reach the prompts, so its absence above is the jail's
doing. Counts go to the session's tally (tests/integration/conftest.py).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.integration.processes import CHILD_TIMEOUT_S, run_child

pytestmark = pytest.mark.integration
AGENT = ROOT / "tests" / "integration" / "cli_prompt_log_agent.py"
OPTIONS = ["--max-retries", "0", "--no-browser", "--embedding-model", "hashing", "--json"]
INSIDE = "INSIDE-7731"
OUTSIDE = "OUTSIDE-4242"
PASSWD = "root:x:0:0"


def _corpus(tmp_path: Path, *, linked: bool) -> Path:
    corpus, outside = tmp_path / "corpus", tmp_path / "outside"
    corpus.mkdir()
    outside.mkdir()
    (corpus / "ada.md").write_text(f"Ada Lovelace was born in 1815 in London. {INSIDE}\n")
    os.symlink(corpus / "ada.md", corpus / "alias.md")  # a link that stays inside is fine
    secret = outside / "secret.md"
    secret.write_text(f"Ada Lovelace wrote the first program in 1843. {OUTSIDE}\n")
    (outside / "more.md").write_text(f"Ada Lovelace was born in London. {OUTSIDE}\n")
    if linked:
        os.symlink(secret, corpus / "leak.md")
        os.symlink("/etc/passwd", corpus / "passwd.txt")
        os.symlink(outside, corpus / "dirlink")
    else:
        shutil.copy(secret, corpus / "leak.md")
    return corpus


def _run(tmp_path: Path, corpus: Path) -> tuple[subprocess.CompletedProcess, str]:
    """The run's result and everything it left: prompts, output and every file under HOME."""
    logs, home = tmp_path / "logs", tmp_path / "data"
    logs.mkdir()
    argv = [sys.executable, str(AGENT), str(logs), "--home", str(home), "run"]
    argv += ["Who was Ada Lovelace?", *OPTIONS, "--corpus", str(corpus)]
    result = run_child(argv, cwd=ROOT, text=True, timeout=CHILD_TIMEOUT_S)
    saved = [p.read_bytes().decode("latin-1") for p in home.rglob("*") if p.is_file()]
    prompts = (logs / "prompts.log").read_text(encoding="utf-8")
    return result, "\n".join([prompts, result.stdout, result.stderr, *saved])


def test_control_a_file_inside_the_corpus_reaches_the_prompts(tmp_path) -> None:
    result, _ = _run(tmp_path, _corpus(tmp_path, linked=False))
    assert result.returncode == 0, result.stderr[-2000:]
    prompts = (tmp_path / "logs" / "prompts.log").read_text(encoding="utf-8")
    assert INSIDE in prompts and OUTSIDE in prompts


def test_nothing_from_outside_the_corpus_reaches_a_run(tmp_path, tally) -> None:
    result, everything = _run(tmp_path, _corpus(tmp_path, linked=True))
    leaked = [marker for marker in (OUTSIDE, PASSWD) if marker in everything]
    tally["corpus_links_tried"] += 3
    tally["corpus_outside_read"] += len(leaked)
    assert result.returncode == 0, result.stderr[-2000:]
    assert INSIDE in (tmp_path / "logs" / "prompts.log").read_text(encoding="utf-8")
    assert not leaked, f"text from outside the corpus reached the run: {leaked}"
    told = [line for line in result.stderr.splitlines() if "outside" in line]
    assert len(told) == 1 and all(n in told[0] for n in ("leak.md", "passwd.txt", "dirlink"))
