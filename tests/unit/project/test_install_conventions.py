"""Ordinary install conventions: the data folder, the program's one name, settings from the
environment and config files under the flags, and paths and errors worded for the caller."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import main
from agents.tools.corpus import CorpusError
from cli import settings
from cli.commands import build_parser, program_name
from cli.errors import UsageError
from core.context import Context, default_home
from graphs import build_reflective_graph
from tests.conftest import ROOT
from tests.unit.research_script import Script, run

# -- the data folder ----------------------------------------------------------------------------


def test_the_data_folder_of_a_checkout_and_of_an_install(tmp_path):
    checkout, installed = tmp_path / "checkout", tmp_path / "site-packages"
    checkout.mkdir()
    (checkout / "pyproject.toml").write_text("[project]\n")
    installed.mkdir()
    home = {"HOME": "/home/ada"}
    assert default_home(home, checkout) == str(checkout / "tmp")
    assert default_home(home, installed) == "/home/ada/.local/share/reflective-agent"
    xdg = {**home, "XDG_DATA_HOME": "/data"}
    assert default_home(xdg, installed) == "/data/reflective-agent"
    relative = {**home, "XDG_DATA_HOME": "data"}  # ignored, as the XDG spec says
    assert default_home(relative, installed) == "/home/ada/.local/share/reflective-agent"
    for root in (checkout, installed):
        assert default_home({**xdg, "AGENT_HOME": "/mine"}, root) == "/mine"
    assert default_home({}) == str(ROOT / "tmp")  # this checkout's


# -- one name -------------------------------------------------------------------------------------


def test_the_program_names_itself_as_it_was_started():
    assert program_name("/venv/bin/reflective-agent", {}) == "reflective-agent"
    assert program_name("main.py", {}) == "python main.py"
    assert program_name("/src/main.py", {}) == "python /src/main.py"
    assert program_name(None, {}) == "reflective-agent"  # main() called from Python
    assert program_name("/src/main.py", {"AGENT_PROG": "./agent"}) == "./agent"


def test_help_version_errors_and_hints_use_that_name(wire, capsys, tmp_path):
    assert main.main(["--version"], prog="./agent") == 0
    assert capsys.readouterr().out.startswith("./agent ")
    assert main.main(["run", "--help"], prog="./agent") == 0
    assert capsys.readouterr().out.startswith("usage: ./agent run ")
    assert main.main(["--home", str(tmp_path), "run", " "], prog="./agent") == 2
    assert 'e.g. ./agent run "What is ...?"' in capsys.readouterr().err
    wire(Script([False] * 3))
    argv = ["--home", str(tmp_path), "run", "Who?", "--no-browser"]
    assert main.main(argv, models=wire.models, tools=wire.tools, prog="./agent") == 0
    assert "(resume with: ./agent run --resume " in capsys.readouterr().err


def test_started_by_python_or_by_the_checkout_s_wrapper():
    def version(*env: str) -> str:
        command = ["env", *env, sys.executable, "main.py", "--version"]
        return subprocess.run(command, cwd=ROOT, capture_output=True, text=True).stdout

    assert version("-u", "AGENT_PROG").startswith("python main.py ")
    assert version("AGENT_PROG=./agent").startswith("./agent ")
    wrapper = (ROOT / "agent").read_text()
    assert 'AGENT_PROG="$0" exec' in wrapper  # ./agent tells the program its name


# -- settings from the environment and config files -----------------------------------------------


def _run_args(argv: list[str], home: Path, environ: dict[str, str]):
    parser = build_parser(["run"])
    held = settings.hold_defaults(parser)
    args = parser.parse_args(["run", "task", *argv])
    return args, settings.fill(args, held, str(home), environ)


def test_flags_win_over_the_environment_which_wins_over_config_files(tmp_path):
    home, user = tmp_path / "data", tmp_path / "xdg"
    (user / "reflective-agent").mkdir(parents=True)
    home.mkdir()
    (user / "reflective-agent" / "config.toml").write_text(
        'model = "openai:user"\nmax_retries = 5\njudge = "evidence"\n'
    )
    (home / "config.toml").write_text('model = "openai:home"\ncorpus = "docs"\nmax_retries = 4\n')
    env = {"XDG_CONFIG_HOME": str(user), "AGENT_MAX_RETRIES": "3"}
    args, filled = _run_args([], home, env)
    assert (args.model, args.max_retries, args.judge) == ("openai:home", 3, "evidence")
    assert args.corpus == str(home / "docs")  # relative to its config file
    assert filled == {"model", "max_retries", "judge", "corpus"}
    args, filled = _run_args(["--max-retries", "1", "--model", "local"], home, env)
    assert (args.model, args.max_retries) == ("local", 1) and "model" not in filled
    args, _ = _run_args([], tmp_path / "nowhere", {"HOME": str(tmp_path)})
    assert (args.model, args.max_retries, args.corpus) == (None, None, None)  # own defaults


@pytest.mark.parametrize(
    ("env", "config", "message"),
    [
        ({"AGENT_MAX_RETRIES": "many"}, "", "AGENT_MAX_RETRIES: max_retries = 'many' is no value"),
        ({"AGENT_JUDGE": "me"}, "", "AGENT_JUDGE: judge = 'me': choose one of model, evidence"),
        ({}, "modle = 'x'\n", "unknown setting(s) modle"),
        ({}, "model = [1]\n", "model = [1] is no value for --model"),
        ({}, "model = \n", "cannot read the settings in"),
    ],
)
def test_a_bad_setting_is_one_error_naming_where_it_came_from(tmp_path, env, config, message):
    (tmp_path / "config.toml").write_text(config)
    with pytest.raises(UsageError, match=re.escape(message)):
        _run_args([], tmp_path, {"HOME": str(tmp_path), **env})


def test_benchmarks_read_no_settings(tmp_path):
    parser = build_parser(["eval"])
    assert settings.hold_defaults(parser) == []


def test_the_cli_runs_on_environment_settings_and_a_resume_keeps_its_own(
    wire, capsys, tmp_path, monkeypatch
):
    import json

    from core.models import Models

    model, specs = wire(Script([False] * 6)), []

    class Recording(Models):  # the scripted model for every spec, each spec asked for kept
        def chat(self, spec):
            specs.append(spec)
            return model

    monkeypatch.setenv("AGENT_MODEL", "openai:from-env")
    monkeypatch.setenv("AGENT_MAX_RETRIES", "0")
    argv = ["--home", str(tmp_path), "run", "Who?", "--no-browser"]
    assert main.main(argv, models=Recording(), tools=wire.tools) == 0
    (saved,) = (tmp_path / "runs").glob("*.json")
    context = json.loads(saved.read_text())["context"]
    assert (context["model"], context["max_retries"]) == ("openai:from-env", 0)
    assert set(specs) == {"openai:from-env"}

    specs.clear()
    monkeypatch.setenv("AGENT_MODEL", "openai:changed")
    resume = ["--home", str(tmp_path), "run", "--resume", saved.stem]
    assert main.main(resume, models=Recording(), tools=wire.tools) == 0
    assert set(specs) == {"openai:from-env"}  # the saved run's, not the new variable's
    assert main.main([*resume, "--model", "openai:flag"], models=Recording(), tools=wire.tools) == 0
    assert "openai:flag" in specs  # a flag does change it
    capsys.readouterr()


# -- paths and errors for the caller --------------------------------------------------------------


def test_a_relative_corpus_dir_is_the_current_folder_s_when_the_context_is_made(
    tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    ctx = Context(corpus_dir="docs")
    monkeypatch.chdir(ROOT)
    assert ctx.corpus_dir == str(tmp_path / "docs")
    assert Context(corpus_dir="~/x").corpus_dir == str(Path.home() / "x")


def test_a_missing_corpus_is_named_for_python_callers_without_a_cli_flag(wire, tmp_path):
    wire(Script())
    ctx = wire.context(tools=None, use_browser=False, corpus_dir=str(tmp_path / "gone"))
    with pytest.raises(CorpusError) as err:
        run(build_reflective_graph(), ctx)
    assert f"corpus folder {tmp_path / 'gone'} does not exist" in str(err.value)
    assert "--" not in str(err.value)


def test_the_cli_names_its_flag(tmp_path, capsys):
    assert main.main(["--home", str(tmp_path), "run", "hi", "--corpus", "gone"]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("error: --corpus: corpus folder ") and "does not exist" in line
