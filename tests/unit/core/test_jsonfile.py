"""core/jsonfile.py: JSON a person gives, read with a depth limit; every way a file can be
unusable is one JsonFileError naming it."""

from __future__ import annotations

import json

import pytest

from core.jsonfile import (
    MAX_DEPTH,
    JsonFileError,
    JsonTooDeep,
    depth_over,
    loads,
    read_json_file,
    read_text,
)


def nested(levels: int) -> str:
    return "[" * levels + "]" * levels


def test_the_limit_is_exact_and_needs_no_recursion() -> None:
    assert loads(nested(MAX_DEPTH)) is not None
    with pytest.raises(JsonTooDeep, match=f"nested more than {MAX_DEPTH} levels"):
        loads(nested(MAX_DEPTH + 1))
    assert not depth_over({"a": [1, {"b": "text"}]}, 3) and depth_over({"a": [1, {"b": []}]}, 3)
    assert not depth_over("text", 0)


def test_what_pythons_parser_gives_up_on_is_the_same_error() -> None:
    with pytest.raises(RecursionError):
        json.loads(nested(100_000))
    with pytest.raises(JsonTooDeep):
        loads(nested(100_000))


@pytest.mark.parametrize(
    ("make", "says"),
    [
        (lambda p: None, "does not exist"),
        (lambda p: p.mkdir(), "is a folder"),
        (lambda p: p.write_bytes(b'{"a": "\xff"}'), "is not UTF-8 text (byte 0xff at offset 7)"),
        (lambda p: p.write_text("{oops"), "is not valid JSON"),
        (lambda p: p.write_text(nested(1_000)), "nested more than 100 levels deep"),
    ],
    ids=["missing", "folder", "not utf-8", "not json", "too deep"],
)
def test_an_unusable_file_is_one_error_naming_it(tmp_path, make, says) -> None:
    path = tmp_path / "config.json"
    make(path)
    with pytest.raises(JsonFileError, match="^the config ") as raised:
        read_json_file(path, "the config")
    assert str(path) in str(raised.value) and says in str(raised.value)


def test_read_text_gives_any_utf8_text_with_the_same_errors(tmp_path) -> None:
    path = tmp_path / "plan.txt"
    path.write_text("one task\nanother\n")
    assert read_text(path, "--plan") == "one task\nanother\n"
    with pytest.raises(JsonFileError, match="^--plan .* is a folder"):
        read_text(tmp_path, "--plan")
