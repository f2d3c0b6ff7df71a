"""Embedded models shipped in parts: assembled once, checked part by part, errors name the wheel."""

from __future__ import annotations

import hashlib
import importlib
import threading

import pytest

from core.model_assembly import model_path
from core.model_catalogue import CATALOGUE, DEFAULT_EMBEDDED, EmbeddedModel, Part, lookup
from core.model_errors import LocalModelUnavailable, ModelPartError, ModelSpecError
from core.model_spec import parse_spec


def fake_wheels(root, prefix: str, chunks: list[bytes]) -> tuple[Part, ...]:
    """Installed-looking packages `<prefix>1..N`, each holding data/partNN.bin."""
    parts = []
    for i, chunk in enumerate(chunks, 1):
        package = f"{prefix}{i}"
        folder = root / package.replace("-", "_")
        (folder / "data").mkdir(parents=True)
        (folder / "__init__.py").write_text("")
        (folder / "data" / f"part{i:02d}.bin").write_bytes(chunk)
        parts.append(Part(package, len(chunk), hashlib.sha256(chunk).hexdigest()))
    importlib.invalidate_caches()
    return tuple(parts)


@pytest.fixture
def split_model(tmp_path, monkeypatch):
    site = tmp_path / "site"
    site.mkdir()
    monkeypatch.syspath_prepend(str(site))
    chunks = [b"GGUF" + bytes(range(256)) * 40, b"middle" * 999, b"tail"]
    parts = fake_wheels(site, f"fake-model-{tmp_path.name[-6:]}-part", chunks)
    model = EmbeddedModel("fake", "Fake", "-", "-", "fake.gguf", 512, parts=parts)
    return model, b"".join(chunks), site


def test_parts_are_assembled_in_order_and_checked(split_model, tmp_path):
    model, whole, _ = split_model
    path = model_path(model, tmp_path / "cache")
    assert path.read_bytes() == whole
    assert not list(path.parent.glob("*.partial"))


def test_a_verified_copy_is_reused_and_a_changed_one_rebuilt(split_model, tmp_path):
    model, whole, _ = split_model
    cache = tmp_path / "cache"
    first = model_path(model, cache)
    mtime = first.stat().st_mtime_ns
    assert model_path(model, cache).stat().st_mtime_ns == mtime  # not written again
    first.write_bytes(b"x" * len(whole))  # damaged in place, same size
    assert model_path(model, cache).read_bytes() == whole


def test_a_truncated_part_names_its_package(split_model, tmp_path):
    model, _, site = split_model
    broken = model.parts[1]
    data = site / broken.package.replace("-", "_") / "data" / "part02.bin"
    data.write_bytes(data.read_bytes()[:-1])
    with pytest.raises(ModelPartError, match=broken.package):
        model_path(model, tmp_path / "cache")
    assert not (tmp_path / "cache" / "fake.gguf").exists()
    assert not list((tmp_path / "cache").glob("*.partial"))


def test_an_altered_part_fails_its_checksum(split_model, tmp_path):
    model, _, site = split_model
    altered = model.parts[0]
    data = site / altered.package.replace("-", "_") / "data" / "part01.bin"
    data.write_bytes(b"HACK" + data.read_bytes()[4:])
    with pytest.raises(ModelPartError, match=f"{altered.package} fails its checksum"):
        model_path(model, tmp_path / "cache")


def test_a_missing_package_says_how_to_install_it(tmp_path):
    part = Part("no-such-model-part7", 10, "0" * 64)
    model = EmbeddedModel("x", "X", "-", "-", "x.gguf", 512, parts=(part,))
    with pytest.raises(LocalModelUnavailable, match="pip install .*no-such-model-part7"):
        model_path(model, tmp_path / "cache")


def test_threads_starting_together_assemble_once(split_model, tmp_path):
    model, whole, _ = split_model
    cache = tmp_path / "cache"
    paths, errors = [], []

    def load() -> None:
        try:
            paths.append(model_path(model, cache))
        except Exception as exc:  # pragma: no cover - shown by the assertion
            errors.append(exc)

    threads = [threading.Thread(target=load) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert {p.read_bytes() for p in paths} == {whole}


def test_catalogue_names_and_specs():
    assert lookup("") is CATALOGUE[DEFAULT_EMBEDDED]
    assert lookup("smollm2").name == "smollm2-135m"
    assert CATALOGUE["qwen2.5-coder-1.5b"].size == 1_117_320_768
    assert CATALOGUE["qwen2.5-coder-0.5b"].size == 491_400_064
    assert parse_spec("local:/models/x.gguf").model == "/models/x.gguf"
    with pytest.raises(ModelSpecError, match="unknown embedded model 'gpt5'"):
        parse_spec("local:gpt5")
