"""Every command's file and URL arguments given wrong, through the real CLI: a missing path, a
folder where a file goes (and a file where a folder goes), a URL that does not parse, JSON
nested 1,000 levels deep. Each is one `error:` line naming the argument, with its documented
exit code (2), before any model loads; never exit 5 or a traceback.

`main.py` runs in child processes, several at once, each failing in about a second (a case
that got past its check meets a model file that does not exist and fails its message check).
Counts go to the session's tally (tests/integration/conftest.py): arguments tried, exit codes,
exit 5s, tracebacks.
"""

from __future__ import annotations

import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.integration.processes import CHILD_TIMEOUT_S, ChildHung, run_child

pytestmark = pytest.mark.integration
DEEP = "[" * 1000 + "]" * 1000  # Python's json parser gives up near 1,000 levels
BAD_URL = "http://[::1"  # an IPv6 literal that is never closed: urllib raises ValueError
# A model file that does not exist: a case that got past its check fails at once on the model
# (and its message check), instead of loading the embedded model.
NO_MODEL = ["--model", "local:/nonexistent/model.gguf"]
RUN = ["run", "Who was Ada Lovelace?", "--no-browser", *NO_MODEL]


def _files(root: Path) -> dict[str, str]:
    """The wrong arguments, made under `root`: {name: path}."""
    (root / "folder").mkdir()
    (root / "deep.json").write_text(DEEP)
    (root / "deep.jsonl").write_text(DEEP + "\n")
    (root / "deep corpus").mkdir()
    (root / "deep corpus" / "records.json").write_text(DEEP)
    (root / "examples.json").write_text("[]")
    (root / "object.json").write_text("{}")
    (root / "page.html").write_text("<h1>a page</h1>")
    bad_url = {"mcpServers": {"web": {"url": f"{BAD_URL}/mcp"}}}
    (root / "bad-url-mcp.json").write_text(json.dumps(bad_url))
    runs = root / "home" / "runs"
    runs.mkdir(parents=True)
    saved = {"task": "Who was Ada Lovelace?", "graph": "reflective", "context": {}}
    (runs / "saved.json").write_text(json.dumps(saved))
    (runs / "deep.json").write_text(DEEP)
    paths = {path.name: str(path) for path in root.iterdir() if path.name != "home"}
    return {**paths, "missing": str(root / "missing.json"), "no folder": str(root / "no" / "x")}


RESUME = ["run", "--resume", "saved", *NO_MODEL]
INDUCE = ["workflows", "induce", *NO_MODEL, "--offline"]
# (id, argv with {names} of _files, the words the one error line must hold)
CASES = [
    ("run --output folder", [*RUN, "--output", "{folder}"], "is a folder"),
    ("run --output no folder", [*RUN, "--output", "{no folder}"], "no folder"),
    ("run --corpus missing", [*RUN, "--corpus", "{missing}"], "does not exist"),
    ("run --corpus a file", [*RUN, "--corpus", "{deep.json}"], "is a file, not a folder"),
    ("run --corpus deep", [*RUN, "--corpus", "{deep corpus}"], "but no text in them"),
    ("run --mcp missing", [*RUN, "--mcp", "{missing}"], "does not exist"),
    ("run --mcp folder", [*RUN, "--mcp", "{folder}"], "is a folder"),
    ("run --mcp deep", [*RUN, "--mcp", "{deep.json}"], "nested more than 100 levels"),
    ("run --mcp bad url", [*RUN, "--mcp", "{bad-url-mcp.json}"], "Invalid IPv6 URL"),
    ("run --model bad url", [*RUN, "--model", f"openai:x@{BAD_URL}"], "Invalid IPv6 URL"),
    ("run --memory-url bad", [*RUN, "--memory-url", "postgresql://[::1"], "Invalid IPv6 URL"),
    ("run --allow-origin bad", [*RUN, "--allow-origin", BAD_URL], "--allow-origin"),
    ("run --resume deep", ["run", "--resume", "deep", *NO_MODEL], "nested more than 100 levels"),
    ("run --plan missing", [*RESUME, "--plan", "{missing}"], "does not exist"),
    ("run --plan folder", [*RESUME, "--plan", "{folder}"], "is a folder"),
    ("run --plan deep", [*RESUME, "--plan", "{deep.json}"], "nested more"),
    ("--home a file", ["--home", "{deep.json}", "memory", "list"], "File exists"),
    ("tools --corpus missing", ["tools", "list", "--corpus", "{missing}"], "does not exist"),
    ("tools --corpus deep", ["tools", "list", "--corpus", "{deep corpus}"], "no text in them"),
    ("tools --mcp missing", ["tools", "list", "--mcp", "{missing}"], "does not exist"),
    ("tools --mcp folder", ["tools", "list", "--mcp", "{folder}"], "is a folder"),
    ("tools --mcp deep", ["tools", "list", "--mcp", "{deep.json}"], "nested more than 100"),
    ("tools --mcp bad url", ["tools", "list", "--mcp", "{bad-url-mcp.json}"], "Invalid IPv6"),
    ("judge deep run", ["judge", "deep", "right"], "nested more than 100 levels"),
    ("judge --memory-url", ["judge", "saved", "right", "--memory-url", BAD_URL], "Invalid IPv6"),
    ("memory import missing", ["memory", "import", "{missing}"], "no such file"),
    ("memory import folder", ["memory", "import", "{folder}"], "is a folder"),
    ("memory import deep", ["memory", "import", "{deep.jsonl}"], "nested too deeply"),
    ("memory export no folder", ["memory", "export", "{no folder}"], "no folder"),
    ("memory export folder", ["memory", "export", "{folder}"], "is a folder"),
    ("workflows missing", [*INDUCE, "{missing}"], "no such file"),
    ("workflows folder", [*INDUCE, "{folder}"], "is a folder"),
    ("workflows deep", [*INDUCE, "{deep.json}"], "nested more"),
    ("workflows not a list", [*INDUCE, "{object.json}"], "expected a JSON list of examples"),
    (
        "workflows --model bad url",
        [*INDUCE, "{examples.json}", "--model", f"openai:x@{BAD_URL}"],
        "Invalid IPv6 URL",
    ),
    ("browse bad url", ["browse", BAD_URL], "Invalid IPv6 URL"),
    ("browse missing", ["browse", "{missing}"], "no such file"),
    ("browse folder", ["browse", "{folder}"], "is a folder"),
    ("browse --allow-origin", ["browse", "{page.html}", "--allow-origin", BAD_URL], "origin"),
    ("browse --screenshot folder", ["browse", "{page.html}", "--screenshot", "{folder}"], "folder"),
    (
        "browse --screenshot no folder",
        ["browse", "{page.html}", "--screenshot", "{no folder}"],
        "no folder",
    ),
    (
        "eval webarena --config folder",
        ["eval", "webarena", "--config", "{folder}", "--predictions", "{deep.json}"],
        "is a folder",
    ),
    (
        "eval webarena --config deep",
        ["eval", "webarena", "--config", "{deep.json}", "--predictions", "{deep.json}"],
        "nested more than 100 levels",
    ),
    ("eval hotpotqa --file missing", ["eval", "hotpotqa", "--file", "{missing}"], "does not exist"),
    ("eval hotpotqa --file folder", ["eval", "hotpotqa", "--file", "{folder}"], "is a folder"),
    ("eval hotpotqa --file deep", ["eval", "hotpotqa", "--file", "{deep.json}"], "nested more"),
]


def _run_case(root: Path, files: dict[str, str], argv: list[str]) -> subprocess.CompletedProcess:
    args = [files[a[1:-1]] if a.startswith("{") else a for a in argv]
    home = [] if "--home" in args else ["--home", str(root / "home")]
    argv = [sys.executable, str(ROOT / "main.py"), *home, *args]
    try:
        quiet = {"stdin": subprocess.DEVNULL, "text": True}
        return run_child(argv, cwd=ROOT, timeout=CHILD_TIMEOUT_S, **quiet)
    except ChildHung as hung:  # this case fails with the child's stacks; the others are still told
        return subprocess.CompletedProcess(argv, -9, "", str(hung))


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> dict[str, subprocess.CompletedProcess]:
    """Every case's finished child process, by id (run four at a time)."""
    root = tmp_path_factory.mktemp("arguments")
    files = _files(root)
    with ThreadPoolExecutor(max_workers=4) as pool:
        done = pool.map(lambda case: _run_case(root, files, case[1]), CASES)
        return {case[0]: result for case, result in zip(CASES, done, strict=True)}


@pytest.mark.parametrize(("name", "says"), [(c[0], c[2]) for c in CASES], ids=[c[0] for c in CASES])
def test_a_wrong_file_or_url_argument_is_one_line_exit_2(results, tally, name, says) -> None:
    result = results[name]
    tally["arguments_tried"] += 1
    tally[f"arguments_exit_{result.returncode}"] += 1
    tally["arguments_tracebacks"] += "Traceback" in result.stderr
    assert "Traceback" not in result.stderr, result.stderr[-3000:]
    assert result.returncode == 2, result.stderr[-3000:]
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and says in errors[0], result.stderr[-3000:]


@pytest.mark.parametrize("name", ["run --corpus deep", "tools --corpus deep"])
def test_a_corpus_file_nested_too_deeply_is_named_as_skipped(results, name) -> None:
    warned = "records.json: skipped, not indexed: its JSON is nested more than 100 levels deep"
    assert warned in results[name].stderr, results[name].stderr[-3000:]
