"""`main.py browse`: what the agent would see, through the same guard, on real chromium."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from evals.common.static_server import serve_directory
from tests.integration.processes import CHILD_TIMEOUT_S, run_child

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    other_dir = tmp_path_factory.mktemp("other")
    (other_dir / "pic.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    with serve_directory(other_dir) as other:
        site = tmp_path_factory.mktemp("site")
        (site / "index.html").write_text(
            f"<title>Shop</title><h1>Welcome</h1><img src='{other}/pic.png' alt='logo'>"
            "<button>Buy</button>"
        )
        with serve_directory(site) as base:
            yield base, other


def browse(*args: str) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "main.py", "browse", *args]
    return run_child(argv, cwd=ROOT, text=True, timeout=CHILD_TIMEOUT_S)


def test_browse_shows_the_observation_and_what_the_guard_refused(sites) -> None:
    base, other = sites
    done = browse(f"{base}/index.html", "--json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["title"] == "Shop" and "heading 'Welcome'" in out["observation"]
    assert "button 'Buy'" in out["observation"]
    assert out["blocked"] == [f"{other}/pic.png"]  # another port of 127.0.0.1: not allowed
    allowed = json.loads(browse(f"{base}/index.html", "--allow-origin", other, "--json").stdout)
    assert allowed["blocked"] == [] and other in allowed["allowed"]
    text = browse(f"{base}/index.html")
    assert text.stdout.startswith("Tab 0 (current): Shop") and f"blocked: {other}" in text.stderr


def test_browse_errors_are_one_line_with_an_exit_code(sites) -> None:
    base, _ = sites
    bad = browse("ftp://example.com/")
    assert bad.returncode == 2 and bad.stderr.startswith("error:") and "Traceback" not in bad.stderr
    missing = browse(f"{base}/nothing-here.html")
    assert missing.returncode == 0 and "404" in missing.stdout  # the server's own answer
    refused = browse(f"{base}/index.html", "--allow-origin", "http://x:notaport")
    assert refused.returncode == 2 and "allow-origin" in refused.stderr
