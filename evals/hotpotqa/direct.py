"""The one-call baseline: the model answers a HotpotQA question over its 10 paragraphs at once,
in free text, asked for the short form HotpotQA's exact match expects."""

from __future__ import annotations

from collections.abc import Sequence

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage

from agents.research.answer_text import clean_short_answer
from core.output_budget import ROLE_BUDGETS, with_max_tokens
from evals.hotpotqa.dataset import Paragraph

DIRECT_SYSTEM = """Answer the question from the paragraphs. Reply with the answer only: a name, a
date, a number, yes or no, or a short phrase; no sentence, no explanation."""

DIRECT_USER = """<paragraphs>
{paragraphs}
</paragraphs>
<question>{question}</question>"""


def paragraphs_text(paragraphs: Sequence[Paragraph]) -> str:
    return "\n".join(f"{p.title}: {p.text}" for p in paragraphs)


def direct_answer(
    model: BaseChatModel, question: str, paragraphs: Sequence[Paragraph], lessons: str = ""
) -> str:
    """One call: the short answer, with `lessons` (past reflections) first when given."""
    system = DIRECT_SYSTEM + (f"\n\nLessons from earlier attempts:\n{lessons}" if lessons else "")
    user = DIRECT_USER.format(paragraphs=paragraphs_text(paragraphs), question=question)
    reply = with_max_tokens(model, ROLE_BUDGETS["short_answer"]).invoke(
        [SystemMessage(system), HumanMessage(user)]
    )
    return clean_short_answer(reply.text)
