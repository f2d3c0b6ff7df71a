"""Kinds of question: two questions are of one kind when their forms (names and numbers left
out, memory/workflows/forms.py) mean the same, by the cosine of their embeddings.

Exact forms split one kind many ways: among 2WikiMultihopQA's 250 dev questions, built from a
few templates, are 159 forms ("born first" and "born earlier", a name split in two where it
holds a comma), so 150 training questions share a form with only 47 of the other 100. By the
cosine of MiniLM embeddings of the forms at KIND_SIMILARITY or more, 77 of those 100 have a
training question of their kind, each of the same type in 2Wiki's own labels (comparison,
inference, compositional, bridge comparison); of 100 MuSiQue questions none, of 100 HotpotQA
questions 4, all of the same type (the first 150 as training questions; the checkout's
`python -m bench.question_kinds` prints these counts).
"""

from __future__ import annotations

from collections.abc import Sequence

from langchain_core.embeddings import Embeddings

from memory.workflows.forms import form_text

KIND_SIMILARITY = 0.9
_KEPT = 4096  # embedded forms kept for the process's later questions
_embedded: dict[tuple[int, str], list[float]] = {}


def kind_similarity(embeddings: Embeddings, question: str, others: Sequence[str]) -> list[float]:
    """How near each of `others` is to `question` in form (cosine, 1.0 for the same form)."""
    forms = [form_text(q) for q in (question, *others)]
    missing = [f for f in dict.fromkeys(forms) if (id(embeddings), f) not in _embedded]
    if missing:
        if len(_embedded) + len(missing) > _KEPT:
            _embedded.clear()
        for form, vector in zip(missing, embeddings.embed_documents(missing), strict=True):
            _embedded[(id(embeddings), form)] = _unit(vector)
    first, *rest = (_embedded[(id(embeddings), f)] for f in forms)
    return [sum(a * b for a, b in zip(first, v, strict=True)) for v in rest]


def _unit(vector: Sequence[float]) -> list[float]:
    norm = sum(x * x for x in vector) ** 0.5 or 1.0
    return [x / norm for x in vector]
