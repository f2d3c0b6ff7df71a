"""Real texts for the memory-search bench and their MiniLM embeddings, cached under tmp/.

Sources, in order (every text distinct): HotpotQA paragraphs, their sentences and questions
(tests/data/hotpotqa), WebArena intents, AWM workflow-prompt lines, then — because those
hold only about 4,200 distinct texts — sentence-split paragraphs of Python's reference manual
(pydoc_data.topics) and of the standard library's docstrings, until the count is reached.
Queries are held out: the HotpotQA questions and the first WebArena intents are never stored.
"""

from __future__ import annotations

import ast
import hashlib
import json
import re
import sysconfig
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"
CACHE = ROOT / "tmp" / "bench"
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


def _sentences(paragraph: str) -> Iterator[str]:
    for s in _SENTENCE.split(re.sub(r"\s+", " ", paragraph).strip()):
        if 30 <= len(s) <= 400 and not s.startswith((">>>", "...")):
            yield s


def _hotpotqa(data: Path) -> tuple[list[str], list[str]]:
    """(paragraphs and sentences, questions) of the shipped HotpotQA sample."""
    texts: list[str] = []
    questions: list[str] = []
    for q in json.loads((data / "hotpotqa" / "distractor_dev60.json").read_text()):
        questions.append(q["question"])
        ctx = q["context"]
        for title, sents in zip(ctx["title"], ctx["sentences"], strict=True):
            texts.append(f"{title}: {''.join(sents)}")
            texts += [s.strip() for s in sents if len(s.strip()) >= 15]
    return texts, questions


def _webarena_and_awm(data: Path) -> list[str]:
    tasks = json.loads((data / "webarena" / "test.raw.json").read_text())
    lines = [t["intent"] for t in tasks]
    for path in sorted((data / "awm").glob("*.txt")):
        lines += [ln.strip() for ln in path.read_text().splitlines() if len(ln.strip()) >= 15]
    return lines


def _python_docs() -> Iterator[str]:
    """Sentences of Python's reference manual, then of the standard library's docstrings."""
    import pydoc_data.topics

    for text in pydoc_data.topics.topics.values():
        for para in re.split(r"\n\s*\n", text):
            yield from _sentences(para)
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    for path in sorted(stdlib.rglob("*.py")):
        if {"test", "tests", "idlelib", "site-packages", "lib2to3"} & set(path.parts):
            continue
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError, ValueError):
            continue  # a few stdlib files are templates or other encodings: not needed here
        for node in ast.walk(tree):
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                for para in re.split(r"\n\s*\n", ast.get_docstring(node) or ""):
                    yield from _sentences(para)


def real_texts(
    count: int, queries: int, data: Path = DATA, cache: Path = CACHE
) -> tuple[list[str], list[str], dict]:
    """(`count` distinct stored texts, `queries` held-out query texts, how many per source)."""
    folder, cache = cache, cache / f"texts-{count}-{queries}.json"
    if cache.exists():
        saved = json.loads(cache.read_text())
        return saved["texts"], saved["queries"], saved["sources"]
    hotpot, questions = _hotpotqa(data)
    web = _webarena_and_awm(data)
    asked = list(dict.fromkeys(questions + web))[:queries]
    seen = set(asked)
    texts: list[str] = []
    sources: dict[str, int] = {}
    for name, stream in (("hotpotqa+webarena+awm", iter(hotpot + web)), ("python-docs", None)):
        for text in stream if stream is not None else _python_docs():
            if len(texts) >= count:
                break
            if text not in seen:
                seen.add(text)
                texts.append(text)
                sources[name] = sources.get(name, 0) + 1
    folder.mkdir(parents=True, exist_ok=True)
    cache.write_text(json.dumps({"texts": texts, "queries": asked, "sources": sources}))
    return texts, asked, sources


def cached_embeddings(
    texts: list[str],
    embed: Callable[[list[str]], list[list[float]]],
    name: str,
    cache: Path = CACHE,
) -> np.ndarray:
    """Unit float32 rows for `texts`, computed once per (embedder, text list) and kept in tmp/."""
    digest = hashlib.sha256(("\x1f".join([name, *texts])).encode()).hexdigest()[:16]
    path = cache / f"emb-{re.sub(r'[^A-Za-z0-9]+', '_', name)}-{digest}.npy"
    if path.exists():
        return np.load(path)
    out = np.zeros((len(texts), 0), np.float32)
    chunks = [np.asarray(embed(texts[i : i + 512]), np.float32) for i in range(0, len(texts), 512)]
    if chunks:
        out = np.concatenate(chunks)
        out /= np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)
    cache.mkdir(parents=True, exist_ok=True)
    np.save(path, out)
    return out
