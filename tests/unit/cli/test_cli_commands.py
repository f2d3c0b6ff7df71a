"""The command table: lazy registration, global options anywhere, --version, --help."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import main
from cli import commands
from tests.conftest import ROOT

HEAVY = ("langgraph", "langchain_core", "langchain", "numpy", "faiss", "torch", "openai")
WORKFLOW = """## open_inbox
On the mail site, this workflow opens the inbox.
[link]  Inbox -> CLICK
[link]  {message-subject} -> CLICK
"""


def _python(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.mark.parametrize(
    "argv", [[], ["run"], ["workflows"], ["memory"], ["browse"], ["--help"], ["run", "--help"]]
)
def test_building_the_parser_imports_nothing_heavy(argv):
    code = (
        "import sys, main\n"
        f"main.build_parser({argv!r})\n"
        f"print(sorted({{m.split('.')[0] for m in sys.modules}} & set({HEAVY!r})))"
    )
    assert _python(code) == "[]"


def test_help_lists_every_command_without_importing_them():
    code = (
        "import io, sys, contextlib, main\n"
        "buf = io.StringIO()\n"
        "with contextlib.redirect_stdout(buf): code = main.main(['--help'])\n"
        "print(code, sorted(m for m in sys.modules if m.startswith('cli.') and m not in "
        "('cli.commands', 'cli.errors')))\n"
        "print(buf.getvalue())"
    )
    first, *help_text = _python(code).splitlines()
    assert first == "0 []"
    text = "\n".join(help_text)
    for name, command in commands.COMMANDS.items():
        assert name in text and command.help in text
    assert "exit codes:" in text and "130  interrupted" in text


def test_every_command_registers_and_uses_no_reserved_option():
    for name in commands.COMMANDS:
        parser = commands.build_parser([name])
        sub = next(a for a in parser._actions if a.dest == "command")
        assert sub.choices[name].get_default("func") or name == "eval"  # eval: per benchmark


def test_a_command_defining_a_global_option_is_refused(monkeypatch):
    module = type(sys)("cli_test_clash")

    def register(subparsers):
        subparsers.add_parser("clash").add_argument("--home")

    module.register = register
    monkeypatch.setitem(sys.modules, "cli_test_clash", module)
    monkeypatch.setitem(commands.COMMANDS, "clash", commands.Command("cli_test_clash", "x"))
    with pytest.raises(RuntimeError, match="global option"):
        commands.build_parser(["clash"])


def test_version(capsys):
    assert main.main(["--version"]) == 0  # main() called from Python: the installed name
    assert capsys.readouterr().out.strip() == f"reflective-agent {commands.version()}"
    assert commands.version().count(".") >= 1


@pytest.mark.parametrize(
    "order",
    [
        ["--home", "{home}", "workflows", "list", "--json"],
        ["workflows", "--home", "{home}", "list", "--json"],
        ["workflows", "list", "--home", "{home}", "--json"],
        ["workflows", "list", "--home={home}", "--json"],
        ["--json", "workflows", "list", "--home", "{home}"],
        ["-v", "workflows", "list", "--json", "--home", "{home}"],
        ["workflows", "list", "-v", "--json", "--home", "{home}"],
    ],
)
def test_global_options_before_or_after_the_subcommand(order, tmp_path, capsys):
    home = tmp_path / "chosen"
    (home / "workflows").mkdir(parents=True)
    (home / "workflows" / "mail.txt").write_text(WORKFLOW)
    argv = [token.replace("{home}", str(home)) for token in order]
    assert main.main(argv) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [w["name"] for w in listed] == ["open_inbox"]


def test_split_globals_keeps_everything_after_a_bare_double_dash():
    found, rest = commands.split_globals(["run", "--home", "h", "--", "--json", "-v"])
    assert (found.home, found.json, found.verbose) == ("h", False, False)
    assert rest == ["run", "--", "--json", "-v"]


def test_home_without_a_value_is_bad_input(capsys):
    assert main.main(["workflows", "list", "--home"]) == 2
    assert "--home: expected one argument" in capsys.readouterr().err


@pytest.mark.parametrize(
    "order",
    [
        ["--home", "{home}", "memory", "list", "--embedding-model", "hashing", "--json"],
        ["memory", "list", "--embedding-model", "hashing", "--home", "{home}", "--json"],
        ["memory", "--json", "list", "--embedding-model", "hashing", "--home={home}"],
    ],
)
def test_global_options_reach_nested_memory_commands(order, tmp_path, capsys):
    home = tmp_path / "chosen"
    argv = [token.replace("{home}", str(home)) for token in order]
    assert main.main(argv) == 0
    assert json.loads(capsys.readouterr().out) == []
    assert (home / "memory").is_dir()  # the store was opened under the chosen home
