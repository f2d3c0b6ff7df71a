"""The HotpotQA AnswerFn: the reflective graph answers with a search tool over the question's
own 10 paragraphs, then the answer is cut to the short span HotpotQA's exact match expects."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from agents import resources
from core.context import Context
from core.structured import ask_structured

SHORT_ANSWER = """Give the shortest answer to the question (a name, a date, a number, yes or
no, or a short phrase), taken from the text below.
<question>
{question}
</question>
<text>
{text}
</text>"""


class ShortAnswer(BaseModel):
    answer: str = Field(description="A few words, no sentence.")


def _corpus_for(question: str, paragraphs: Sequence[Any], home: str) -> str:
    from agents.tools.corpus import save_passages

    key = hashlib.sha1(question.encode()).hexdigest()[:12]
    folder = Path(home) / "hotpotqa" / key
    items = [(p.title, p.text) if hasattr(p, "title") else tuple(p) for p in paragraphs]
    save_passages(items, folder)
    return str(folder)


def short_answer(model_spec: str, question: str, text: str) -> str:
    model = resources.chat_model(model_spec)
    out = ask_structured(
        model, ShortAnswer, SHORT_ANSWER.format(question=question, text=text[:3000])
    )
    return (out.answer if out else text.split("\n", 1)[0]).strip()


def make_answer_fn(*, model: str, max_retries: int, home: str, graph_name: str = "reflective"):
    """An AnswerFn(question, paragraphs) -> (answer, trials) over the reflective graph."""
    if graph_name == "single-path":
        from graphs.single_path import graph
    else:
        from graphs.reflective import graph

    def answer_fn(question: str, paragraphs: Sequence[Any]) -> tuple[str, list[str]]:
        ctx = Context(
            planner_model=model,
            executor_model=model,
            reflector_model=model,
            aggregator_model=model,
            max_retries=max_retries,
            use_browser=False,
            home=home,
            corpus_dir=_corpus_for(question, paragraphs, home),
        )
        out = graph.invoke({"query": question}, context=ctx)
        answer = short_answer(model, question, out.get("final_output", ""))
        return answer, [answer]

    return answer_fn
