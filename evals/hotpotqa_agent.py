"""The HotpotQA AnswerFn: the reflective graph answers with a search tool over the question's
own 10 paragraphs, then the answer is cut to the short span HotpotQA's exact match expects."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from langchain_core.runnables import RunnableConfig
from pydantic import BaseModel, Field

from agents import resources
from core.context import Context
from core.output_budget import ROLE_BUDGETS
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


def short_answer(
    model_spec: str, question: str, text: str, config: RunnableConfig | None = None
) -> str:
    model = resources.chat_model(model_spec)
    if config and config.get("callbacks"):
        model = model.with_config(callbacks=config["callbacks"])
    out = ask_structured(
        model, ShortAnswer, SHORT_ANSWER.format(question=question, text=text[:3000]),
        max_tokens=ROLE_BUDGETS["short_answer"],
    )  # fmt: skip
    return (out.answer if out else text.split("\n", 1)[0]).strip()


GRAPHS = ("reflective", "single-path")


def make_answer_fn(
    *,
    model: str,
    max_retries: int,
    home: str,
    graph_name: str = "reflective",
    reflections: bool = True,
    callbacks: Sequence[Any] = (),
):
    """An AnswerFn(question, paragraphs) -> (answer, trials) over one of the product's graphs.

    `reflections=False`: no past reflections or workflows in any prompt and no workflow
    induction (the memory-off arm); otherwise the Context's defaults, as a user runs it.
    `callbacks` see every model call (e.g. a call counter).
    """
    if graph_name not in GRAPHS:
        raise ValueError(f"--graph must be one of {', '.join(GRAPHS)}, not {graph_name!r}")
    if graph_name == "single-path":
        from graphs.single_path import graph
    else:
        from graphs.reflective import graph
    memory: dict[str, Any] = {} if reflections else {
        "reflections_k": 0, "workflows_k": 0, "induction": "off"}  # fmt: skip
    config: RunnableConfig = {"callbacks": list(callbacks)}

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
            **memory,
        )
        out = graph.invoke({"query": question}, config=config, context=ctx)
        answer = short_answer(model, question, out.get("final_output", ""), config)
        return answer, [answer]

    return answer_fn
