"""The answerers a research agent is measured against, each what a user could write in ten lines:

- `closed`: one call, the question alone (what the model knows);
- `rag`: one BM25 retrieval of the question (the project's CorpusIndex, top k), then one call
  over those passages;
- `react`: LangChain's `create_agent` with the same corpus search tool, asked for a short answer.

Each is an AnswerFn(question, paragraphs) (evals.hotpotqa.dataset): over `corpus` (a folder, the
pooled setting) when one is given, else over the question's own paragraphs (distractor).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from langchain_core.runnables import RunnableConfig, RunnableLambda

from agents.research.answer_text import clean_short_answer
from agents.tools.corpus import CorpusIndex, make_corpus_tool
from core.output_limits import OUTPUT_LIMITS, with_max_tokens
from evals.hotpotqa.dataset import Paragraph
from evals.hotpotqa.direct import direct_answer

BASELINES = ("closed", "rag", "react")
RAG_K = 5  # passages one retrieval hands the call: what the research graph's first search reads
REACT_STEPS = 4  # tool calls the react agent may make before it must answer

CLOSED_SYSTEM = """Answer the question from what you know. Reply with the answer only: a name, a
date, a number, yes or no, or a short phrase; no sentence, no explanation."""

REACT_SYSTEM = """Answer the question. Search the document collection with corpus_search (a short
keyword query) as often as you need, then reply with the answer only: a name, a date, a number,
yes or no, or a short phrase; no sentence, no explanation."""


def index_for(corpus: str | None, paragraphs: Sequence[Paragraph]) -> CorpusIndex:
    """The pooled corpus's index (a folder), else one over the question's own paragraphs."""
    if corpus:
        return CorpusIndex.load(corpus)
    return CorpusIndex.from_passages([(p.title, p.text) for p in paragraphs])


def retrieved(index: CorpusIndex, question: str, k: int = RAG_K) -> list[Paragraph]:
    """The question's top-k passages, as paragraphs a one-call prompt shows."""
    return [Paragraph(hit.title, (hit.text,)) for hit in index.search(question, k)]


def closed_answer(model: BaseChatModel, question: str) -> str:
    reply = with_max_tokens(model, OUTPUT_LIMITS["short_answer"]).invoke(
        [SystemMessage(CLOSED_SYSTEM), HumanMessage(f"<question>{question}</question>")]
    )
    return clean_short_answer(reply.text)


def react_answer(
    model: BaseChatModel, question: str, index: CorpusIndex, config: RunnableConfig
) -> str:
    """create_agent with the corpus tool: its last message is the answer ("" when it ran out of
    steps or ended on a tool call)."""
    from langchain.agents import create_agent
    from langgraph.errors import GraphRecursionError

    tool = make_corpus_tool(index, k=3)
    chat = with_max_tokens(model, OUTPUT_LIMITS["executor"])
    agent = create_agent(chat, tools=[tool], system_prompt=REACT_SYSTEM)
    limit: RunnableConfig = {**config, "recursion_limit": 2 * REACT_STEPS + 2}
    try:
        out = agent.invoke({"messages": [HumanMessage(question)]}, limit)
    except GraphRecursionError:
        return ""
    last = out["messages"][-1]
    done = isinstance(last, AIMessage) and not last.tool_calls
    return clean_short_answer(last.text) if done else ""


def baseline_answer_fn(
    name: str,
    chat: BaseChatModel,
    *,
    corpus: str | None = None,
    callbacks: Sequence[Any] = (),
    k: int = RAG_K,
) -> Callable[[str, Sequence[Paragraph]], tuple[str, list[str]]]:
    """The AnswerFn of baseline `name` (BASELINES); its model calls reach `callbacks`."""
    if name not in BASELINES:
        raise ValueError(f"baseline must be one of {', '.join(BASELINES)}, not {name!r}")
    config: RunnableConfig = {"callbacks": list(callbacks)}
    pooled = CorpusIndex.load(corpus) if corpus else None  # indexed once, for every question

    def answer_fn(question: str, paragraphs: Sequence[Paragraph]) -> tuple[str, list[str]]:
        index = pooled or index_for(None, paragraphs)
        if name == "react":
            answer = react_answer(chat, question, index, config)
            return answer, [answer]
        one: RunnableLambda[str, str]
        if name == "closed":
            one = RunnableLambda(lambda q: closed_answer(chat, q))
        else:
            hits = retrieved(index, question, k)
            one = RunnableLambda(lambda q: direct_answer(chat, q, hits))
        answer = one.invoke(question, config=config)  # a runnable: its call reaches callbacks
        return answer, [answer]

    return answer_fn
