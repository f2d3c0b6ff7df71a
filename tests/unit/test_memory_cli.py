"""`main.py memory …` through cli.memory.register: formats, exit codes, import validation."""

from __future__ import annotations

import argparse
import json

import pytest

from cli import memory as memory_cli

HASH = ["--embedding-model", "hashing"]


def run(home, *argv: str) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--home")
    memory_cli.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["--home", str(home), "memory", *argv])
    return args.func(args)


def line(id_: str, task: str, text: str = "Check the dates first.") -> str:
    return json.dumps(
        {
            "id": id_,
            "task": task,
            "reflection": text,
            "judgment": {"needs_retry": False, "confidence": 0.9, "reasons": ["ok"]},
        }
    )


@pytest.fixture
def filled(tmp_path, capsys):
    src = tmp_path / "in.jsonl"
    src.write_text(
        "\n".join(
            [line("a1", "book a flight to Paris"), line("a2", "write python code", "Run tests.")]
        )
        + "\n"
    )
    assert run(tmp_path, "import", str(src), *HASH) == 0
    capsys.readouterr()
    return tmp_path


def test_search_json_is_best_first_with_the_issue_fields(filled, capsys):
    assert run(filled, "search", "flight Paris", "--k", "2", "--json", *HASH) == 0
    out = json.loads(capsys.readouterr().out)
    assert [r["id"] for r in out] == ["a1"]
    assert set(out[0]) == {"id", "task", "reflection", "score"}
    assert out[0]["score"] > 0


def test_list_show_export_roundtrip(filled, tmp_path, capsys):
    assert run(filled, "list", "--json", *HASH) == 0
    assert [r["id"] for r in json.loads(capsys.readouterr().out)] == ["a1", "a2"]
    assert run(filled, "show", "a2", "--json", *HASH) == 0
    assert json.loads(capsys.readouterr().out)["reflection"] == "Run tests."
    out = tmp_path / "out.jsonl"
    assert run(filled, "export", str(out), "--json", *HASH) == 0
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    assert [r["id"] for r in rows] == ["a1", "a2"]
    assert rows[0]["judgment"] == {"needs_retry": False, "confidence": 0.9, "reasons": ["ok"]}


def test_show_missing_id_is_exit_1_with_one_line(filled, capsys):
    assert run(filled, "show", "nope", *HASH) == 1
    err = capsys.readouterr().err
    assert "no reflection with id 'nope'" in err and err.count("\n") == 1


def test_bad_import_line_names_the_line_and_imports_nothing(filled, tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(line("b1", "new one") + "\n" + '{"id": "b2", "task": 3}\n')
    assert run(filled, "import", str(bad), *HASH) == 1
    err = capsys.readouterr().err
    assert "bad.jsonl:2:" in err and "nothing was imported" in err
    assert run(filled, "list", "--json", *HASH) == 0
    assert [r["id"] for r in json.loads(capsys.readouterr().out)] == ["a1", "a2"]


def test_clear_and_embedder_mismatch(filled, capsys):
    assert run(filled, "search", "flight", *["--embedding-model", "hashing:32"]) == 1
    assert "re-embed" in capsys.readouterr().err
    assert run(filled, "clear", "--json", *HASH) == 0
    assert json.loads(capsys.readouterr().out) == {"deleted": 2, "namespace": "default"}
    assert run(filled, "list", "--json", *HASH) == 0
    assert json.loads(capsys.readouterr().out) == []
