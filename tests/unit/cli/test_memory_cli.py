"""`main.py memory …` through cli.memory.register: formats, exit codes, import validation."""

from __future__ import annotations

import json

import pytest

from main import main

HASH = ["--embedding-model", "hashing"]


def run(home, *argv: str) -> int:
    """The real entry point, so failures go through the CLI's one-line error reporting."""
    return main(["--home", str(home), "memory", *argv])


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
    # imported without --trust: confidence capped, the file's claim kept in the provenance
    assert rows[0]["judgment"] == {"needs_retry": False, "confidence": 0.5, "reasons": ["ok"]}
    assert rows[0]["provenance"]["origin"] == "import" and not rows[0]["provenance"]["trusted"]
    assert rows[0]["provenance"]["claimed_confidence"] == 0.9


def test_show_missing_id_is_exit_1_with_one_line(filled, capsys):
    assert run(filled, "show", "nope", *HASH) == 1
    err = capsys.readouterr().err
    assert "no reflection with id 'nope'" in err and err.count("\n") == 1


def test_bad_import_line_names_the_line_and_imports_nothing(filled, tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(line("b1", "new one") + "\n" + '{"id": "b2", "task": 3}\n')
    assert run(filled, "import", str(bad), *HASH) == 2
    err = capsys.readouterr().err
    assert "bad.jsonl:2:" in err and "nothing was imported" in err and err.count("\n") == 1
    assert run(filled, "list", "--json", *HASH) == 0
    assert [r["id"] for r in json.loads(capsys.readouterr().out)] == ["a1", "a2"]


def test_clear_and_embedder_mismatch(filled, capsys):
    assert run(filled, "search", "flight", *["--embedding-model", "hashing:32"]) == 2
    assert "re-embed" in capsys.readouterr().err
    assert run(filled, "clear", "--json", *HASH) == 0
    assert json.loads(capsys.readouterr().out) == {"deleted": 2, "namespace": "default"}
    assert run(filled, "list", "--json", *HASH) == 0
    assert json.loads(capsys.readouterr().out) == []


def test_import_refuses_existing_ids_unless_replace(filled, tmp_path, capsys):
    again = tmp_path / "again.jsonl"
    again.write_text(line("a1", "book a train to Lyon") + "\n" + line("c1", "new") + "\n")
    assert run(filled, "import", str(again), *HASH) == 2
    err = capsys.readouterr().err
    assert "1 ids are already in namespace 'default' ('a1')" in err and "--replace" in err
    assert run(filled, "show", "a1", "--json", *HASH) == 0
    assert json.loads(capsys.readouterr().out)["task"] == "book a flight to Paris", "untouched"
    assert run(filled, "import", str(again), "--replace", "--json", *HASH) == 0
    assert json.loads(capsys.readouterr().out)["replaced"] == 1
    assert run(filled, "show", "a1", "--json", *HASH) == 0
    assert json.loads(capsys.readouterr().out)["task"] == "book a train to Lyon"


def test_import_reports_duplicates_oversize_and_bad_bytes_by_line(tmp_path, capsys):
    dup = tmp_path / "dup.jsonl"
    dup.write_text("\n".join([line("x", "a"), line("y", "b"), line("x", "c")]) + "\n")
    big = tmp_path / "big.jsonl"
    big.write_text(line("z", "t", "word " * 5000) + "\n")
    raw = tmp_path / "raw.jsonl"
    raw.write_bytes(
        line("w", "ok").encode() + b"\n" + line("v", "caf").encode().replace(b"caf", b"caf\xff")
    )
    cases = [
        (dup, [], "the same id on several lines: 'x' (lines 1, 3)"),
        (big, [], "over the 16,384-byte limit"),
        (big, ["--max-record-bytes", "100"], "over the 100-byte limit"),
        (raw, [], "raw.jsonl:2: byte 0xff at column"),
    ]
    for path, extra, expected in cases:
        assert run(tmp_path, "import", str(path), *extra, *HASH) == 2
        err = capsys.readouterr().err
        assert expected in err and "nothing was imported" in err and err.count("\n") == 1, err
    assert run(tmp_path, "import", str(big), "--max-record-bytes", "100000", *HASH) == 0
    assert run(tmp_path, "list", "--json", *HASH) == 0


def test_list_is_one_line_per_memory_folded_and_cut(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    src = tmp_path / "in.jsonl"
    src.write_text(line("m1", "multi\nline task", "first line\n\nsecond " + "x" * 300) + "\n")
    assert run(tmp_path, "import", str(src), *HASH) == 0
    capsys.readouterr()
    assert run(tmp_path, "list", *HASH) == 0
    (only,) = capsys.readouterr().out.splitlines()
    assert only.startswith("m1 ") and "multi line task — first line second x" in only
    assert len(only) == 100 and only.endswith("…")


def test_search_says_when_it_loads_the_embedding_model(filled, capsys, monkeypatch):
    import cli.memory as memory_cli

    monkeypatch.setattr(memory_cli, "_model_not_loaded", lambda emb: True)
    assert run(filled, "search", "flight", *HASH) == 0
    assert "loading the embedding model" in capsys.readouterr().err
    monkeypatch.setattr(memory_cli, "_model_not_loaded", lambda emb: False)
    assert run(filled, "search", "flight", *HASH) == 0
    assert capsys.readouterr().err == ""


def test_a_damaged_store_is_one_line_and_exit_4_then_check_and_repair(tmp_path, capsys):
    db = tmp_path / "memory" / "memory.sqlite3"
    db.parent.mkdir()
    db.write_bytes(b"garbage " * 1000)
    for action in (["list"], ["search", "flight"], ["show", "a1"]):
        assert run(tmp_path, *action, *HASH) == 4
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "Traceback" not in err
        assert str(db) in err and "memory repair" in err
    assert run(tmp_path, "check", *HASH) == 4
    assert "damaged" in capsys.readouterr().out
    assert run(tmp_path, "repair", *HASH) == 0
    assert "moved the damaged database" in capsys.readouterr().out
    assert run(tmp_path, "check", "--json", *HASH) == 0
    assert json.loads(capsys.readouterr().out)["problems"] == []
    assert run(tmp_path, "list", *HASH) == 0
