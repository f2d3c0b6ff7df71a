"""SmolLM2's Q8_0 copy on the real llama.cpp: it loads, predicts text as well as the shipped
Q4_1 file, and is what `local:smollm2-135m` runs (bench/model_format.py's code on one prompt)."""

from __future__ import annotations

import json

import pytest

from core.model_assembly import embedded_gguf
from core.model_catalogue import CATALOGUE, TEST_MODEL

pytestmark = pytest.mark.integration


@pytest.fixture
def isolated_cache(tmp_path, monkeypatch):
    pytest.importorskip("llama_cpp", reason="the embedded model's runtime is not installed")
    from core.model_errors import LocalModelUnavailable

    try:
        embedded_gguf(TEST_MODEL)
    except LocalModelUnavailable as exc:
        pytest.skip(f"embedded model not installed: {exc}")
    monkeypatch.setenv("AGENT_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_the_q8_0_copy_predicts_text_as_well_as_the_shipped_weights(isolated_cache, capsys):
    from bench import model_format

    model_format.main(["--json", "--prompts", "1", "--tokens", "4"])
    result = json.loads(capsys.readouterr().out)
    ppl = result["perplexity"]
    assert abs(ppl["q8_0"] - ppl["q4_1"]) / ppl["q4_1"] < 0.01, ppl
    assert result["q8_0"]["prompt_tokens_per_s"] > 0 and result["prompt_tokens"][0] > 300
    assert [p.suffix for p in isolated_cache.iterdir()] == [".gguf"]  # no partial file left


def test_local_runs_the_copy_and_as_is_runs_the_shipped_file(isolated_cache, capfd):
    from core.local_model import LocalChatModel

    copy = LocalChatModel.load(TEST_MODEL, n_ctx=512)  # converts: the cache is empty
    assert capfd.readouterr().err == ""  # llama.cpp's per-tensor lines go to logging
    shipped = LocalChatModel.load(TEST_MODEL, weights="as-is", n_ctx=512)
    assert copy.model_path.endswith(".Q8_0.gguf")
    assert copy.model_path.startswith(str(isolated_cache))
    assert shipped.model_path.endswith(CATALOGUE[TEST_MODEL].gguf_name)
    reply = copy.model_copy(update={"max_tokens": 8}).invoke("Say hello.")
    assert reply.usage_metadata["output_tokens"] >= 1


def test_a_damaged_copy_is_replaced_by_the_shipped_file(isolated_cache):
    from core.gguf_weights import converted_name
    from core.local_model import LocalChatModel

    isolated_cache.mkdir(parents=True)
    damaged = isolated_cache / converted_name(embedded_gguf(TEST_MODEL))
    damaged.write_bytes(b"GGUF" + b"\0" * 64)  # a header llama.cpp cannot read
    model = LocalChatModel.load(TEST_MODEL, n_ctx=256)
    assert model.model_path.endswith(CATALOGUE[TEST_MODEL].gguf_name) and not damaged.exists()
