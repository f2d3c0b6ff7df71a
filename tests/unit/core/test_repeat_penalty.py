"""The embedded models' repeat penalty: each catalogue entry's own (SmolLM2's 1.3 stops its
runaway repetition; on Qwen it penalized the JSON and the words an answer copies), overridden
per run by `local#repeat=P`, and sent with every request."""

from __future__ import annotations

import threading

import pytest

import core.local_model as local_model
from core.local_model import LocalChatModel
from core.model_catalogue import CATALOGUE
from core.model_errors import ModelSpecError
from core.model_spec import parse_spec
from core.models import build_chat_model


class _Llama:
    """llama_cpp.Llama's surface that a request needs: a tokenizer, and a recorded call."""

    def __init__(self) -> None:
        self.params: dict = {}
        self.call_lock = threading.Lock()

    def tokenize(self, text: bytes, add_bos: bool = False, special: bool = True) -> list[int]:
        return list(range(len(text) // 4 + 1))

    def create_chat_completion(self, **params):
        self.params = params
        return {"choices": [{"message": {"content": "ok"}}], "usage": {}}


@pytest.fixture
def loaded(monkeypatch, tmp_path):
    """LocalChatModel.load without weights: every model 'loads' a recording fake."""
    gguf = tmp_path / "m.gguf"
    gguf.write_bytes(b"GGUF")
    monkeypatch.setattr(local_model, "model_path", lambda entry: gguf)
    monkeypatch.setattr(local_model, "q8_0_weights", lambda source: source)
    monkeypatch.setattr(local_model, "load_llama", lambda path, n_ctx, n_threads: _Llama())


def test_each_catalogue_model_has_its_own_penalty(loaded):
    assert CATALOGUE["smollm2-135m"].repeat_penalty == 1.3
    assert LocalChatModel.load("smollm2-135m").repeat_penalty == 1.3
    for name in ("", "qwen2.5-coder-1.5b", "qwen2.5-coder-0.5b"):
        assert LocalChatModel.load(name).repeat_penalty == 1.0


def test_the_spec_option_overrides_it_and_every_request_sends_it(loaded):
    model = build_chat_model("local#repeat=1.3")
    assert model.repeat_penalty == 1.3
    model.invoke("hi")
    assert model._llama.params["repeat_penalty"] == 1.3
    plain = build_chat_model("local")
    plain.invoke("hi")
    assert plain._llama.params["repeat_penalty"] == 1.0


@pytest.mark.parametrize("value", ["none", "0", "-1"])
def test_a_bad_penalty_is_refused_with_how_to_write_it(value):
    with pytest.raises(ModelSpecError, match="positive number"):
        parse_spec(f"local#repeat={value}")
    assert parse_spec("local#repeat=1.05").number("repeat") == 1.05
