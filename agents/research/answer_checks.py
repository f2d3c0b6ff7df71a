"""Does the executor agent's answer answer anything? A small model's "answer" may only restate
a tool call or paraphrase its own instructions; execute_task then answers from the evidence."""

from __future__ import annotations

import re

from langchain_core.tools import BaseTool

from agents.research.answer_text import PromptEcho
from prompts.research import EXECUTOR_TASK, GROUNDED_ANSWER, RETRY_NOTE

_CALL = re.compile(r"\s*(?:Calling\s+\w+\s*\(|\{\s*\"tool\"\s*:)")
# the executor's own instructions: a sentence half made of runs copied from them is theirs
_OWN_PROMPTS = PromptEcho((EXECUTOR_TASK, GROUNDED_ANSWER, RETRY_NOTE), share=0.5)


def echoes_a_tool_call(answer: str, tools: list[BaseTool]) -> bool:
    """An "answer" that only restates a tool call (`Calling corpus_search({...})`, the way
    earlier calls appear in a small model's transcript, of any tool name, or the call's JSON)
    answers nothing."""
    text = answer.strip()
    return bool(_CALL.match(text)) or any(text.startswith(t.name + "(") for t in tools)


def says_something(answer: str) -> bool:
    """Does `answer` say more than the executor's own instructions (a small model paraphrases
    them back as its answer)?"""
    sentences = [s for s in re.split(r"(?<=[.!?])\s+|\n+", answer) if re.search(r"\w", s)]
    return any(not _OWN_PROMPTS.echoes(s) for s in sentences)
