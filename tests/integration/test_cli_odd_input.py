"""Odd bytes and odd places through the real CLI: each is handled or one `error:` line with its
documented exit code (cli/errors.py), never exit 5 or a traceback.

`main.py` runs in a child process with a scripted model (tests/integration/cli_scripted_agent.py):
non-UTF-8 bytes in the task and in corpus names, a read-only and a full data directory, hand-
edited run files, an oversized task, `memory check` and `memory repair` on a read-only store.
Read-only and full are real: the child runs in a private mount namespace (`unshare`) where the
data directory is a read-only bind mount or a full 64 KiB tmpfs, so they hold for root too
(chmod does not stop root). Counts go to the session's tally (tests/integration/conftest.py).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

import main
from cli.validate import MAX_TASK_CHARS
from tests.conftest import ROOT
from tests.integration.processes import CHILD_TIMEOUT_S, run_child

pytestmark = pytest.mark.integration
AGENT = ROOT / "tests" / "integration" / "cli_scripted_agent.py"
OPTIONS = ["--max-retries", "0", "--no-browser", "--embedding-model", "hashing"]
ARG = str | bytes


def _cli(tmp_path: Path, home: Path, *args: ARG, prefix: tuple[str, ...] = ()):
    """`main.py --home HOME ARGS` on the scripted model; bytes arguments go through as bytes."""
    logs = tmp_path / "logs"
    logs.mkdir(exist_ok=True)
    argv = [*prefix, sys.executable, str(AGENT), str(logs), "--home", str(home), *args]
    return run_child(argv, cwd=ROOT, timeout=CHILD_TIMEOUT_S)


def _expect(result, code: int, tally, *, says: str = "", report: bool = False) -> str:
    """The child exited with `code`, on a failure with one `error:` line containing `says`
    (none for a `report`, such as `memory check`'s); returns stderr. Every call is one odd
    input in the tally."""
    err = result.stderr.decode("utf-8", "replace")
    tally["odd_tried"] += 1
    tally[f"odd_exit_{result.returncode}"] += 1
    assert "Traceback" not in err, err[-2000:]
    assert result.returncode == code, err[-2000:]
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    if report or code == 0:
        assert not errors, err[-2000:]
    else:
        assert len(errors) == 1 and says in errors[0], err[-2000:]
    return err


def test_a_task_with_bytes_that_are_not_utf8_is_one_line_exit_2(tmp_path, tally) -> None:
    task = b"Who was Ada \xff\xfe Lovelace?"
    result = _cli(tmp_path, tmp_path / "home", "run", task, *OPTIONS, "--json")
    err = _expect(result, 2, tally, says="not valid UTF-8")
    assert "Ada \\xff\\xfe Lovelace" in err  # the bytes shown, escaped
    assert json.loads(result.stdout)["error"]["type"] == "bad_input"


def test_corpus_names_that_are_not_utf8_are_read(tmp_path, tally) -> None:
    corpus = Path(os.fsdecode(bytes(tmp_path) + b"/corpus \xe9"))  # the folder's name too
    corpus.mkdir()
    (corpus / os.fsdecode(b"caf\xe9.md")).write_text("Ada Lovelace was born in 1815.\n")
    args = ["run", "Who was Ada Lovelace?", *OPTIONS, "--corpus", str(corpus), "--json"]
    result = _cli(tmp_path, tmp_path / "home", *args)
    _expect(result, 0, tally)
    assert "caf\\xe9.md" in json.loads(result.stdout)["sources"]


def _namespace(setup: str) -> tuple[str, ...]:
    """A prefix that runs the command in a private mount namespace after `setup` (sh)."""
    probe = subprocess.run(["unshare", "--mount", "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip(f"no private mount namespace here (unshare: {probe.stderr.decode()[:200]})")
    return ("unshare", "--mount", "--propagation", "private", "sh", "-c", setup + ' && exec "$@"')


def _read_only(folder: Path) -> tuple[str, ...]:
    mount = f"mount --bind '{folder}' '{folder}' && mount -o remount,ro,bind '{folder}'"
    return (*_namespace(mount), "sh")


def _full(folder: Path) -> tuple[str, ...]:
    fill = f"mount -t tmpfs -o size=64k tmpfs '{folder}' && (cat /dev/zero > '{folder}/fill'; true)"
    return (*_namespace(fill), "sh")


@pytest.fixture(scope="module")
def finished(tmp_path_factory) -> Path:
    """A data directory with a finished run and its memory (made once)."""
    tmp = tmp_path_factory.mktemp("finished")
    done = _cli(tmp, tmp / "home", "run", "Who was Ada Lovelace?", *OPTIONS)
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    return tmp / "home"


@pytest.fixture
def store(tmp_path, finished) -> Path:
    """This test's own copy of `finished`."""
    return Path(shutil.copytree(finished, tmp_path / "data"))


def test_run_in_a_read_only_data_directory_is_one_line_exit_2(tmp_path, store, tally) -> None:
    result = _cli(tmp_path, store, "run", "Who?", *OPTIONS, prefix=_read_only(store))
    _expect(result, 2, tally, says="Read-only file system")
    assert "cannot write to the data directory" in result.stderr.decode()


def test_run_in_a_full_data_directory_is_one_line_exit_2(tmp_path, tally) -> None:
    home = tmp_path / "data"
    home.mkdir()
    result = _cli(tmp_path, home, "run", "Who?", *OPTIONS, prefix=_full(home))
    _expect(result, 2, tally, says="No space left on device")


def test_memory_check_tells_a_read_only_store_from_a_damaged_one(tmp_path, store, tally) -> None:
    check = _cli(tmp_path, store, "memory", "check", prefix=_read_only(store))
    out = _expect(check, 0, tally, report=True) + check.stdout.decode()
    assert "access: read-only" in out and "problem" not in out and "damaged" not in out
    repair = _cli(tmp_path, store, "memory", "repair", *OPTIONS[-2:], prefix=_read_only(store))
    _expect(repair, 2, tally, says="is read-only")
    db = store / "memory" / "memory.sqlite3"
    with db.open("r+b") as fh:
        fh.write(b"this is not a database header")  # now damage it too
    check = _cli(tmp_path, store, "memory", "check", prefix=_read_only(store))
    _expect(check, 4, tally, report=True)
    assert "damaged" in check.stdout.decode() and "access: read-only" in check.stdout.decode()


TAMPERED = {
    '"max_retries": "lots"': ("max_retries", "lots", "'max_retries' should be a whole number"),
    "a null retry count": ("max_retries", None, "'max_retries' should be a whole number"),
    "a string for a flag": ("use_browser", "yes", "'use_browser' should be true or false"),
    "an unknown graph": ("graph", "nope", "'graph' should be 'reflective' or 'single-path'"),
    "an unknown induction": ("induction", "zzz", "'induction' should be 'rule'"),
    "no reflections, negatively": ("reflections_k", -5, "'reflections_k' should be at least 0"),
    "a namespace with dots": ("memory_namespace", "../../etc", "bad memory namespace"),
    "an origin that is not one": ("allowed_origins", ["ftp://x"], "--allow-origin 'ftp://x'"),
    "origins as a string": ("allowed_origins", "*", "'allowed_origins' should be a list"),
    "a context that is a list": ("context", [], "is not a saved run"),
}


@pytest.mark.parametrize("name", list(TAMPERED) + ["cut short", "bytes that are not UTF-8"])
def test_a_tampered_run_file_is_one_line_exit_2(tmp_path, store, tally, name) -> None:
    path = next((store / "runs").glob("*.json"))
    saved = json.loads(path.read_text())
    if name in TAMPERED:
        key, value, says = TAMPERED[name]
        (saved if key in ("graph", "context") else saved["context"])[key] = value
        path.write_text(json.dumps(saved))
    else:
        body = json.dumps(saved).encode()
        path.write_bytes(body[:40] if name == "cut short" else body.replace(b"Ada", b"\xff\xfe"))
        says = "cannot read run"
    result = _cli(tmp_path, store, "run", "--resume", path.stem)
    err = _expect(result, 2, tally, says=says)
    assert str(path) in err


def test_an_oversized_task_is_refused_at_once_with_the_cap(tmp_path, capsys, tally) -> None:
    started = time.monotonic()
    code = main.main(["--home", str(tmp_path / "home"), "run", "x " * 500_000, *OPTIONS])
    seconds, err = time.monotonic() - started, capsys.readouterr().err
    tally["odd_tried"] += 1
    tally[f"odd_exit_{code}"] += 1
    assert code == 2 and err.count("error:") == 1, err[:500]
    assert "999,999 characters; the limit is 10,000" in err and seconds < 5.0
    over = _cli(tmp_path, tmp_path / "home", "run", "y" * (MAX_TASK_CHARS + 1), *OPTIONS)
    _expect(over, 2, tally, says=f"the limit is {MAX_TASK_CHARS:,}")
    at_cap = _cli(tmp_path, tmp_path / "home", "run", "y" * MAX_TASK_CHARS, *OPTIONS)
    _expect(at_cap, 0, tally)
