"""The default relevance floor on the real MiniLM embeddings and real HotpotQA texts: memories
about one question's subject stay out of an unrelated question's prompts, and reach a related
one's (the graph runs on the scripted model; the store embeds with MiniLM)."""

from __future__ import annotations

import json

import pytest
from langgraph.store.memory import InMemoryStore

from graphs import build_reflective_graph
from memory.agent_memory import AgentMemory
from memory.reflections.schema import Reflection, ReflectionJudgment
from tests.conftest import DATA
from tests.unit.research_script import Script, run, wire  # noqa: F401 (fixture)

pytestmark = pytest.mark.integration
HOTPOT = DATA / "hotpotqa" / "distractor_dev60.json"


class QuestionScript(Script):
    """Plans a run around one HotpotQA question: its goal and tasks are the question's."""

    def __init__(self, question: str) -> None:
        super().__init__(plan=[f"Find the answer to: {question}", f"Find sources for: {question}"])
        self.question = question

    def __call__(self, prompt, title, tools, messages):
        if title == "GoalSetting":
            return {
                "goal": f"Answer the question: {self.question}",
                "answer_form": "a name, date, number, yes or no, or a short phrase",
                "criteria": ["the answer is cited"],
            }
        return super().__call__(prompt, title, tools, messages)


STRATEGIES = [  # what a lesson that reaches another task's prompt says (strategies only)
    "Quote the sentence of the documents that states the fact, not a summary of it.",
    "Search the subject's own article before the articles that mention it.",
    "Name the year as the documents write it, without the day or the month.",
    "Answer with the subject's full name as its article opens.",
]


def _lessons(record: dict) -> list[tuple[str, str]]:
    """Reflections a run on this question could have left: a strategy learned on each of its
    supporting subjects (the subject is in the task, which retrieval embeds with the lesson)."""
    titles = dict.fromkeys(record["supporting_facts"]["title"])
    return [
        (f"Find what the documents say about {t}", f"Learned on {t}. {STRATEGIES[i % 4]}")
        for i, t in enumerate(titles)
    ]


def _fill(store, record: dict) -> list[str]:
    memory, texts = AgentMemory(store), []
    for task, lesson in _lessons(record):
        judgment = ReflectionJudgment(needs_retry=False, confidence=0.9, verdict="pass")
        memory.save_reflection(Reflection(task=task, reflection=lesson, judgment=judgment))
        texts.append(lesson)
    return texts


@pytest.fixture(scope="module")
def records():
    return json.loads(HOTPOT.read_text())


@pytest.fixture(scope="module")
def minilm():
    from core.models import Models

    return Models().embeddings("local")


def _prompts_seen(use, minilm, stored_from: dict, asked: dict) -> tuple[list[str], list[str]]:
    store = InMemoryStore(index={"dims": 384, "embed": minilm})
    lessons = _fill(store, stored_from)
    model = use(QuestionScript(asked["question"]))
    run(build_reflective_graph(), use.context(max_retries=0), asked["question"], store=store)
    return [c["prompt"] for c in model.calls], lessons


def test_memories_on_one_subject_stay_out_of_an_unrelated_run(wire, minilm, records):  # noqa: F811
    prompts, lessons = _prompts_seen(wire, minilm, stored_from=records[0], asked=records[7])
    assert prompts and lessons
    leaked = [x for x in lessons for p in prompts if _strategy(x) in p]
    assert leaked == [], f"unrelated memories reached a prompt: {leaked}"


def test_memories_on_the_same_subject_reach_the_run(wire, minilm, records):  # noqa: F811
    prompts, lessons = _prompts_seen(wire, minilm, stored_from=records[0], asked=records[0])
    assert any(_strategy(x) in p for x in lessons for p in prompts)


def _strategy(lesson: str) -> str:
    """What of `lesson` a prompt of another task shows: its strategy (the subject's name is a
    particular of its task: memory/reflections/lessons.py)."""
    return lesson.split(". ", 1)[1]
