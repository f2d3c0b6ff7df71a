"""IRCoT (Trivedi et al., ACL 2023, arXiv 2212.10509), the multi-step peer of the research graph:
interleave chain-of-thought with retrieval.

As the paper describes it: retrieve K paragraphs with the question; then, step by step, the model
writes the next sentence of its reasoning over every paragraph gathered so far, and that sentence
is the next query (its K new paragraphs join the rest, at most 15 in all); it stops when a
sentence states the answer ("So the answer is: …") or after MAX_STEPS sentences. A reader then
answers over the gathered paragraphs (`reader="direct"`, one reading, the paper's Direct reader;
`reader="cot"`, the answer the reasoning stated, read only when it stated none). The reading
always follows by default, as the issue that asked for this peer describes it; the stated answer
is kept beside it (`last_stated`), so both readers are scored from one run.

The few-shot demonstrations are four questions of the multihop files held out of every measured
and tuned part (evals/multihop/dataset.py HELD_OUT), written as the paper's demonstrations are:
the gold paragraphs, the question, and a reasoning that ends "So the answer is: …". They come first
in every prompt, and gathered paragraphs are appended in the order found, so a local model reads a
step's prompt from its cache up to what is new.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage

from agents.research.answer_text import clean_short_answer
from agents.tools.corpus import CorpusHit, CorpusIndex
from core.output_limits import with_max_tokens
from evals.hotpotqa.dataset import Paragraph
from evals.hotpotqa.direct import direct_answer

K = 4  # paragraphs each retrieval adds (the paper tunes K among 2, 4, 6, 8)
FIRST_K = 5  # the question's own retrieval: what the rag baseline reads
MAX_PARAGRAPHS = 15  # what the reasoning and the reader see at most (the paper's cap)
MAX_STEPS = 5  # reasoning sentences before the reader answers regardless
STEP_TOKENS = 72  # one sentence, with room for "So the answer is: …"
READERS = ("direct", "cot")

SYSTEM = """You answer questions by reasoning step by step over Wikipedia paragraphs. Each step \
is one short sentence stating one fact from the paragraphs. When the facts give the answer, the \
last sentence is "So the answer is: <answer>." with the answer in as few words as it needs."""

DEMOS: tuple[tuple[tuple[tuple[str, str], ...], str, str], ...] = (
    (  # 2WikiMultihopQA dev 8ecf1554… (compositional)
        (
            (
                "Emmanuelle Seigner",
                "Emmanuelle Seigner (born 22 June 1966) is a French actress, former fashion "
                "model, and singer. She is married to Polish film director Roman Polanski.",
            ),
            (
                "Roman Polanski",
                "Roman Polański (born 18 August 1933 in Paris; original name Raymond Thierry "
                "Liebling) is a French-Polish film director, producer, writer, and actor.",
            ),
        ),
        "Where was the husband of Emmanuelle Seigner born?",
        "Emmanuelle Seigner is married to Roman Polanski. Roman Polanski was born in Paris. "
        "So the answer is: Paris.",
    ),
    (  # 2WikiMultihopQA dev 14f5dbb2… (bridge comparison)
        (
            (
                "Agitated Women",
                "Agitated Women is a 1927 German silent film directed by Richard Oswald and "
                "starring Asta Nielsen, Carmen Boni and Gustav Fröhlich.",
            ),
            (
                "An Even Break",
                "An Even Break is a 1917 American silent comedy-drama film written and directed "
                "by Lambert Hillyer, and starring Olive Thomas and Charles Gunn.",
            ),
            (
                "Richard Oswald",
                "Richard Oswald (5 November 1880 – 11 September 1963) was an Austrian director, "
                "producer, and screenwriter.",
            ),
            (
                "Lambert Hillyer",
                "Lambert Harwood Hillyer (July 8, 1893 – July 5, 1969) was an American film "
                "director and screenwriter.",
            ),
        ),
        "Which film has the director who died earlier, Agitated Women or An Even Break?",
        "Agitated Women was directed by Richard Oswald. An Even Break was directed by Lambert "
        "Hillyer. Richard Oswald died on 11 September 1963. Lambert Hillyer died on July 5, "
        "1969. Richard Oswald died earlier. So the answer is: Agitated Women.",
    ),
    (  # HotpotQA dev 5a8b63fa… (bridge)
        (
            (
                "Darling's Waterfront Pavilion",
                "The Darling's Waterfront Pavilion is an open-air amphitheater located within "
                "the Waterfront Park in Bangor, Maine.",
            ),
            (
                "Bangor, Maine",
                "Bangor is a city along the Penobscot River in the U.S. state of Maine. Bangor "
                'is known as the "Queen City" of Maine.',
            ),
        ),
        "What is the nickname of the city where Darling's Waterfront Pavilion is located?",
        "Darling's Waterfront Pavilion is located in Bangor, Maine. Bangor is known as the "
        "Queen City. So the answer is: Queen City.",
    ),
    (  # MuSiQue dev 2hop__88834_356793
        (
            (
                "Return to Nim's Island",
                "Bindi Irwin as Nim Rusoe Matthew Lillard as Jack Rusoe Toby Wallace as Edmund",
            ),
            (
                "My Daddy, the Crocodile Hunter",
                "My Daddy, the Crocodile Hunter is a one-hour television documentary film that "
                "is hosted by Bindi Irwin and details her life and also serves as a memorial "
                "for her father, famed naturalist and conservationist Steve Irwin.",
            ),
        ),
        "Who is the father of Nim's actress in Return to Nim's Island?",
        "Nim in Return to Nim's Island is played by Bindi Irwin. Bindi Irwin's father is Steve "
        "Irwin. So the answer is: Steve Irwin.",
    ),
)

_ANSWER = re.compile(r"answer is:?\s*(.+)", re.I | re.S)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"'(])")


def paragraphs_block(paragraphs: Sequence[tuple[str, str]]) -> str:
    return "\n\n".join(f"Wikipedia Title: {title}\n{text}" for title, text in paragraphs)


def example(paragraphs: Sequence[tuple[str, str]], question: str, reasoning: str) -> str:
    return f"{paragraphs_block(paragraphs)}\n\nQ: {question}\nA: {reasoning}".rstrip()


def step_prompt(paragraphs: Sequence[tuple[str, str]], question: str, so_far: str) -> str:
    """The demonstrations, then this question's paragraphs, question and reasoning so far."""
    demos = "\n\n\n".join(example(*demo) for demo in DEMOS)
    return (
        f"{demos}\n\n\n{example(paragraphs, question, so_far)}\n\n"
        "Continue the reasoning after A: with the next sentence only."
    )


def next_sentence(reply: str) -> str:
    """The reply's next step: its first sentence, or, when the reply goes on to state the
    answer, everything up to that statement (the model has reasoned to the end: asking again
    for the sentence it already wrote would only cost a call)."""
    text = " ".join(reply.replace("A:", " ").split())
    sentences = _SENTENCE_END.split(text) if text else [""]
    for n, sentence in enumerate(sentences):
        if _ANSWER.search(sentence):
            return " ".join(sentences[: n + 1])
    return sentences[0]


def stated_answer(sentence: str) -> str | None:
    """The answer a sentence states ("So the answer is: X."), else None."""
    found = _ANSWER.search(sentence)
    return clean_short_answer(found.group(1).strip().rstrip(".")) if found else None


@dataclass
class Gathered:
    """The paragraphs a question's reasoning has read, in the order found, each once."""

    hits: list[CorpusHit] = field(default_factory=list)

    def add(self, found: Sequence[CorpusHit], room: int = MAX_PARAGRAPHS) -> None:
        seen = {(h.source, h.text) for h in self.hits}
        for hit in found:
            if len(self.hits) >= room:
                return
            if (hit.source, hit.text) not in seen:
                seen.add((hit.source, hit.text))
                self.hits.append(hit)

    def pairs(self) -> list[tuple[str, str]]:
        return [(h.title, h.text) for h in self.hits]

    def sources(self) -> list[str]:
        return list(dict.fromkeys(h.source for h in self.hits))


@dataclass
class IRCoT:
    """IRCoT over one corpus index with one model; `answer(question)` gives the answer, and
    `last_read` (the sources shown) and `last_steps` (the reasoning) say how it got there."""

    model: BaseChatModel
    index: CorpusIndex
    reader: str = "direct"
    max_steps: int = MAX_STEPS
    last_read: list[str] = field(default_factory=list)
    last_steps: list[str] = field(default_factory=list)
    last_stated: str | None = None  # the answer the reasoning stated, if it stated one

    def answer(self, question: str) -> str:
        gathered = Gathered()
        gathered.add(self.index.search(question, FIRST_K))
        steps: list[str] = []
        stated = None
        chat = with_max_tokens(self.model, STEP_TOKENS)
        for _ in range(self.max_steps):
            prompt = step_prompt(gathered.pairs(), question, " ".join(steps))
            reply = chat.invoke([SystemMessage(SYSTEM), HumanMessage(prompt)])
            sentence = next_sentence(reply.text)
            if not sentence or sentence in steps:  # nothing new to say: the reader takes over
                break
            steps.append(sentence)
            stated = stated_answer(sentence)
            if stated is not None:
                break
            gathered.add(self.index.search(sentence, K))
        self.last_read, self.last_steps, self.last_stated = gathered.sources(), steps, stated
        if self.reader == "cot" and stated:
            return stated
        shown = [Paragraph(title, (text,)) for title, text in gathered.pairs()]
        return direct_answer(self.model, question, shown)
