"""The project installed as a wheel in a fresh virtualenv, as a user installs it without `-e`:
its command names itself `reflective-agent`, and its data lives in the user's data folder, not in
site-packages.

The wheel is built offline from a copy of the sources (the build leaves `build/` where it runs)
and installed with `--no-deps --no-index`; its dependencies come from this interpreter's
site-packages through a .pth file, which adds them after the wheel's own packages.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.integration
SOURCES = [
    "agents",
    "bench",
    "browser",
    "cli",
    "core",
    "evals",
    "graphs",
    "memory",
    "prompts",
    "reflective_agent",
]  # all: the build picks


def _wheel(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    for name in SOURCES:
        shutil.copytree(ROOT / name, src / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("main.py", "setup.py", "pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    pip = [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation"]
    subprocess.run([*pip, "--no-index", "-w", str(tmp_path / "dist"), str(src)], check=True)
    (wheel,) = (tmp_path / "dist").glob("reflective_agent-*.whl")
    return wheel


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """The `reflective-agent` command of a fresh virtualenv holding only the wheel."""
    tmp_path = tmp_path_factory.mktemp("wheel")
    wheel = _wheel(tmp_path)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    install = [str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)]
    subprocess.run(install, check=True)
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    Path(site, "zz_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return venv / "bin" / "reflective-agent"


def _agent(command: Path, home: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AGENT_", "XDG_"))}
    env["HOME"] = str(home)
    work = home / "work"  # not the checkout: nothing there may be picked up
    work.mkdir(parents=True, exist_ok=True)
    run = [str(command), *args]
    return subprocess.run(run, cwd=work, env=env, capture_output=True, text=True, timeout=120)


def test_the_installed_command_names_itself_and_keeps_data_in_the_user_s_folder(
    installed, tmp_path
):
    version = _agent(installed, tmp_path, "--version")
    assert version.stdout.startswith("reflective-agent "), version.stderr
    usage = _agent(installed, tmp_path, "run", "--help")
    assert usage.stdout.startswith("usage: reflective-agent run "), usage.stderr
    empty = _agent(installed, tmp_path, "run", " ")
    assert empty.returncode == 2 and 'e.g. reflective-agent run "' in empty.stderr

    listed = _agent(installed, tmp_path, "memory", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    data = tmp_path / ".local" / "share" / "reflective-agent"
    assert (data / "memory").is_dir()
    site = installed.parent.parent / "lib"
    assert not list(site.glob("python*/site-packages/tmp"))  # never the install folder


def test_the_wheel_holds_the_product_not_the_lab(installed, tmp_path):
    """evals/ and bench/ stay in the checkout: the installed package has neither, nothing it
    imports needs them, and `eval` says where the benchmarks are instead of a traceback."""
    site = next((installed.parent.parent / "lib").glob("python*/site-packages"))
    assert (site / "reflective_agent" / "agents").is_dir()
    assert not (site / "reflective_agent" / "evals").exists() and not (site / "evals").exists()
    assert not (site / "bench").exists()
    usage = _agent(installed, tmp_path, "eval", "hotpotqa", "--help")
    assert usage.returncode == 2, usage.stdout
    assert "come with the source checkout" in usage.stderr and "Traceback" not in usage.stderr
    listed = _agent(installed, tmp_path, "--help")
    assert listed.returncode == 0 and "eval" in listed.stdout  # still listed, with its note


def test_the_wheel_takes_one_top_level_name_and_an_app_keeps_its_own(installed, tmp_path):
    """Installed, the product is `reflective_agent` alone: an app with its own `core/` and
    `agents/` packages imports them and the research graph side by side, neither shadowing the
    other."""
    site = next((installed.parent.parent / "lib").glob("python*/site-packages"))
    product = ("agents", "browser", "cli", "core", "graphs", "memory", "prompts", "main.py")
    assert not [name for name in product if (site / name).exists()]
    app = tmp_path / "app"
    for own in ("core", "agents"):
        (app / own).mkdir(parents=True)
        (app / own / "__init__.py").write_text("WHOSE = 'the app'\n")
    script = (
        "import core, agents\n"
        "from reflective_agent.graphs import Context, build_reflective_graph\n"
        "from reflective_agent.core.context import Context as Same\n"
        "graph = build_reflective_graph().compile()\n"
        "assert core.WHOSE == agents.WHOSE == 'the app' and Context is Same\n"
        "print(' '.join(sorted(graph.nodes)))\n"
    )
    python = installed.parent / "python"
    done = subprocess.run(
        [str(python), "-c", script], cwd=app, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert "goal_setting" in done.stdout.split() and "hop" in done.stdout.split()
