"""The answerers a research agent is measured against, each what a user could write in ten lines:

- `closed`: one call, the question alone (what the model knows);
- `rag`: one BM25 retrieval of the question (the project's CorpusIndex, top k), then one call
  over those passages;
- `react`: LangChain's `create_agent` with the same corpus search tool, asked for a short answer;
- `ircot`: IRCoT, reasoning interleaved with retrieval (evals.hotpotqa.ircot), the published
  multi-step method.

Each is an AnswerFn(question, paragraphs) (evals.hotpotqa.dataset): over `corpus` (a folder, the
pooled setting) when one is given, else over the question's own paragraphs (distractor); its
`last_read` lists the sources of the passages its last answer's prompts showed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from langchain_core.runnables import RunnableConfig, RunnableLambda

from agents.research.answer_text import clean_short_answer
from agents.tools.corpus import CorpusHit, CorpusIndex, format_hits
from agents.tools.search_tool import make_search_tool
from core.output_limits import OUTPUT_LIMITS, with_max_tokens
from evals.hotpotqa.dataset import Paragraph
from evals.hotpotqa.direct import direct_answer
from evals.hotpotqa.ircot import IRCoT

BASELINES = ("closed", "rag", "react", "ircot")
RAG_K = 5  # passages one retrieval hands the call: what the research graph's first search reads
REACT_STEPS = 4  # tool calls the react agent may make before it must answer

CLOSED_SYSTEM = """Answer the question from what you know. Reply with the answer only: a name, a
date, a number, yes or no, or a short phrase; no sentence, no explanation."""

REACT_SYSTEM = """Answer the question. Search the document collection with corpus_search (a short
keyword query) as often as you need, then reply with the answer only: a name, a date, a number,
yes or no, or a short phrase; no sentence, no explanation."""

SEARCH_TOOL = (
    "Search the local document collection. Input: a short keyword query. Returns the "
    "best-matching passages with their titles and source files."
)


def index_for(corpus: str | None, paragraphs: Sequence[Paragraph]) -> CorpusIndex:
    """The pooled corpus's index (a folder), else one over the question's own paragraphs."""
    if corpus:
        return CorpusIndex.load(corpus)
    return CorpusIndex.from_passages([(p.title, p.text) for p in paragraphs])


def retrieved(index: CorpusIndex, question: str, k: int = RAG_K) -> list[CorpusHit]:
    """The question's top-k passages."""
    return index.search(question, k)


def as_paragraphs(found: Sequence[CorpusHit]) -> list[Paragraph]:
    """Passages as the paragraphs a one-call prompt shows."""
    return [Paragraph(hit.title, (hit.text,)) for hit in found]


def closed_answer(model: BaseChatModel, question: str) -> str:
    reply = with_max_tokens(model, OUTPUT_LIMITS["short_answer"]).invoke(
        [SystemMessage(CLOSED_SYSTEM), HumanMessage(f"<question>{question}</question>")]
    )
    return clean_short_answer(reply.text)


def react_answer(
    model: BaseChatModel,
    question: str,
    index: CorpusIndex,
    config: RunnableConfig,
    read: list[str] | None = None,
) -> str:
    """create_agent with the corpus tool: its last message is the answer ("" when it ran out of
    steps or ended on a tool call); the sources its searches returned go to `read`."""
    from langchain.agents import create_agent
    from langgraph.errors import GraphRecursionError

    def search(query: str, k: int) -> str:
        found = index.search(query, k)
        if read is not None:
            read.extend(hit.source for hit in found)
        return format_hits(found, query)

    tool = make_search_tool(search, name="corpus_search", description=SEARCH_TOOL, k=3)
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


@dataclass
class BaselineAnswerFn:
    """The AnswerFn of one baseline; `last_read`: the sources its last answer read."""

    name: str
    chat: BaseChatModel
    pooled: CorpusIndex | None
    config: RunnableConfig
    k: int = RAG_K
    last_read: list[str] = field(default_factory=list)
    last_path: dict[str, Any] = field(default_factory=dict)  # IRCoT's reasoning, if it ran

    def __call__(self, question: str, paragraphs: Sequence[Paragraph]) -> tuple[str, list[str]]:
        index = self.pooled or index_for(None, paragraphs)
        answer = self._answer(question, index)
        self.last_read = list(dict.fromkeys(self.last_read))
        return answer, [answer]

    def _answer(self, question: str, index: CorpusIndex) -> str:
        self.last_read, self.last_path = [], {}
        if self.name == "react":
            return react_answer(self.chat, question, index, self.config, self.last_read)
        one: RunnableLambda[str, str]
        if self.name == "closed":
            one = RunnableLambda(lambda q: closed_answer(self.chat, q))
        elif self.name == "ircot":
            ircot = IRCoT(self.chat, index)
            one = RunnableLambda(ircot.answer)
        else:
            found = retrieved(index, question, self.k)
            self.last_read = [hit.source for hit in found]
            one = RunnableLambda(lambda q: direct_answer(self.chat, q, as_paragraphs(found)))
        answer = one.invoke(question, config=self.config)  # a runnable: calls reach callbacks
        if self.name == "ircot":
            self.last_read = ircot.last_read
            self.last_path = {"steps": ircot.last_steps, "stated": ircot.last_stated}
        return answer


def baseline_answer_fn(
    name: str,
    chat: BaseChatModel,
    *,
    corpus: str | None = None,
    callbacks: Sequence[Any] = (),
    k: int = RAG_K,
) -> BaselineAnswerFn:
    """The AnswerFn of baseline `name` (BASELINES); its model calls reach `callbacks`."""
    if name not in BASELINES:
        raise ValueError(f"baseline must be one of {', '.join(BASELINES)}, not {name!r}")
    config: RunnableConfig = {"callbacks": list(callbacks)}
    pooled = CorpusIndex.load(corpus) if corpus else None  # indexed once, for every question
    return BaselineAnswerFn(name, chat, pooled, config, k)
