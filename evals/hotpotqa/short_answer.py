"""The short answer HotpotQA scores (a name, a date, a number, yes or no): cut from a longer
text by one grammar-constrained call, or chosen among the paragraphs' candidate spans."""

from __future__ import annotations

from langchain_core.language_models import BaseChatModel
from pydantic import BaseModel, Field

from agents.research.answer_text import short_answer_text
from core.local_seed import sample_round
from core.output_limits import OUTPUT_LIMITS
from core.structured import ask_structured, choice_schema, choice_text

SHORT_ANSWER = """Give the shortest answer to the question (a name, a date, a number, yes or
no, or a short phrase), taken from the text below.
<question>
{question}
</question>
<text>
{text}
</text>"""


CHOOSE_ANSWER = """Answer the question with one of the possible answers, using the text below.
<question>
{question}
</question>
<text>
{text}
</text>
Possible answers: {candidates}"""


class ShortAnswer(BaseModel):
    answer: str = Field(description="A few words, no sentence.")


DIRECT_CHARS = 6000  # ~1,500 tokens: the 10 paragraphs mostly fit the embedded model's context


SHORT_ANSWER_ATTEMPTS = 2  # a second sample when the first held no words at all


def short_answer(model: BaseChatModel, question: str, text: str, limit: int = 3000) -> str:
    prompt = SHORT_ANSWER.format(question=question, text=text[:limit])
    answer, budget = "", OUTPUT_LIMITS["short_answer"]
    for attempt in range(SHORT_ANSWER_ATTEMPTS):
        with sample_round(attempt):  # the same prompt again: a new sample
            out = ask_structured(model, ShortAnswer, prompt, max_tokens=budget)
        # an answer cut from truncated JSON began with `);` or `}`: keep only the words
        answer = short_answer_text(out.answer if out else text)
        if answer:
            break
    return answer


def chosen_answer(model: BaseChatModel, question: str, text: str, candidates: list[str]) -> str:
    """One of `candidates`, chosen by the model under a grammar; "" when it gave none. With no
    candidates at all (paragraphs without a name, date or title) it writes a short answer."""
    if not candidates:
        return short_answer(model, question, text, limit=DIRECT_CHARS)
    shown = {choice_text(c): c for c in candidates}  # as a choice grammar can hold them
    prompt = CHOOSE_ANSWER.format(
        question=question, text=text[:DIRECT_CHARS], candidates=" | ".join(shown)
    )
    out = ask_structured(
        model, choice_schema(list(shown)), prompt, max_tokens=OUTPUT_LIMITS["short_answer"]
    )
    return shown.get(str(getattr(out, "answer", "")), "")
