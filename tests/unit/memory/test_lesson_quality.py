"""Memory teaches strategies only: verdicts are never lessons, insights never mix unrelated tasks
or carry answers. The texts below are the records a HotpotQA stream run with carried memory
stored (the reflections of the default model and the insights consolidation made of them)."""

from __future__ import annotations

import numpy as np

from core.embeddings import HashingEmbeddings
from graphs import build_reflective_graph
from memory.agent_memory import AgentMemory
from memory.reflections.consolidation import consolidate
from memory.reflections.manager import ReflectionManager
from memory.reflections.schema import Reflection, ReflectionJudgment
from tests.unit.fakes import ScriptedChatModel
from tests.unit.research_script import Script, new_store, run, wire

__all__ = ["wire"]

VERDICTS = [  # what the reflector wrote where the lesson belongs
    "The result is good enough and the evidence supports it directly from a corpus search result.",
    "The result is good enough as it directly answers the task by providing William King's "
    "election in 1820 following the Missouri Compromise from passages.jsonl:3.",
    "The result is good enough as it answers the task and provides evidence from a reliable "
    "source (passages.jsonl:8). The reflection emphasizes that while there might be other "
    "sources of information about Mauricio Pochettino's birth year, this particular passage "
    "directly supports our answer.",
    "The result is good enough as it directly answers the task by providing John M. Keller's "
    "work on motivation and instructional design from passages.jsonl:10.",
    "(no lesson stated)",
    "",
    "  ",
]
STRATEGIES = [
    "Search the person's biography for the birth date and quote the year.",
    "Verdict False: cite the source.",
    "Check dates.",
    "The answer to a 'when' question must be a date, so search for the event's date first.",
    "It helps to search the full name before the nickname.",
]
PASS = ReflectionJudgment(needs_retry=False, confidence=0.9, verdict="pass")
UNRELATED = [  # lessons, but about three different kinds of task
    ("Find the new acronym for VIVA Media AG in 2004", "Search the renaming announcement."),
    ("Find the year when Creed disbanded", "Look for the breakup in the band's history."),
    ("Find the band that covered 'If You Ever Get Lonely'", "Quote the song title to search."),
]
BIRTH_YEARS = [  # one kind of task, three questions
    ("Find the birth year of Ada Lovelace", STRATEGIES[0]),
    ("Find the birth year of Mauricio Pochettino", STRATEGIES[0]),
    ("Find the birth year of Tim Kaine", STRATEGIES[0]),
]


def lesson(task: str, text: str, judgment: ReflectionJudgment = PASS) -> Reflection:
    return Reflection(task=task, reflection=text, judgment=judgment, importance=0.9)


def test_a_verdict_or_an_empty_lesson_is_no_lesson():
    from memory.reflections.lessons import states_lesson

    assert [states_lesson(t) for t in VERDICTS] == [False] * len(VERDICTS)
    assert [states_lesson(t) for t in STRATEGIES] == [True] * len(STRATEGIES)


def test_a_verdict_is_kept_but_never_retrieved_as_a_lesson():
    memory = AgentMemory(new_store(), min_relevance=-1.0)
    task = "Find the birth year of Mauricio Pochettino"
    kept = [memory.save_reflection(lesson(task, text)) for text in VERDICTS]
    taught = memory.save_reflection(lesson(task, STRATEGIES[0]))
    found = memory.relevant_reflections(task, k=10)
    assert [r.id for r in found] == [taught]
    assert all(memory.get_reflection(i) is not None for i in kept), "kept as judgments"


def test_an_insight_that_carries_answers_is_never_retrieved():
    memory = AgentMemory(new_store(), min_relevance=-1.0)
    key = "What is the acronym for VIVA Media AG in 2004?"
    stored = [  # as the old consolidation stored them in the stream run's memory
        "Creed disbanded in the year after Jonny Craig's involvement with bands ended.",
        "The acronym for VIVA Media AG in 2004 was 'Viva'.",
    ]
    for text in stored:
        memory.save_reflection(lesson(key, text).model_copy(update={"kind": "insight"}))
    advice = lesson(key, "Search for the renaming announcement, not the founding.")
    memory.save_reflection(advice.model_copy(update={"kind": "insight"}))
    assert [r.reflection for r in memory.relevant_reflections(key, k=10)] == [advice.reflection]


def test_the_next_run_gets_no_verdict_as_a_lesson(wire):
    class Verdicts(Script):
        def __call__(self, prompt, title, tools, messages):
            reply = super().__call__(prompt, title, tools, messages)
            if title == "ReflectionOutput":
                reply["reflection"] = VERDICTS[0] if not reply["needs_retry"] else "Search by date."
            return reply

    model = wire(Verdicts({0: [True, False]}))
    run(build_reflective_graph(), wire.context(max_retries=1), store=wire.store)
    model.calls.clear()
    run(build_reflective_graph(), wire.context(max_retries=1), query="Ada?", store=wire.store)
    prompts = [c["prompt"] for c in model.calls if "<past_reflections>" in c["prompt"]]
    pasts = [p.split("<past_reflections>")[1].split("</past_reflections>")[0] for p in prompts]
    assert pasts and not any("good enough" in past for past in pasts)
    assert any("Search by date." in past for past in pasts), "the real lesson still comes"


def fact_teller(asked: list[str]) -> ScriptedChatModel:
    """A consolidator that answers like the small model did: questions about one member, then
    a strategy mixed with facts (answers) about the members."""

    def respond(prompt, title, tools, messages):
        asked.append(prompt)
        if title == "SalientQuestions":
            return {"questions": ["What is the acronym for VIVA Media AG in 2004?"]}
        return {
            "task_kind": "find the year a person was born",
            "insights": [
                "Search the biography for the birth date, then quote the year it states.",
                "Creed disbanded in the year after Jonny Craig's involvement with bands ended.",
                "Mauricio Pochettino was born in 1972.",
                "The result is good enough and the evidence supports it.",
            ],
        }

    return ScriptedChatModel(responder=respond, calls=[])


def test_unrelated_lessons_are_not_consolidated():
    asked: list[str] = []
    m = ReflectionManager(HashingEmbeddings())
    m.consolidation_floor = 0.8  # hashed words: unrelated tasks share "find the year"
    m.save_many([lesson(t, s) for t, s in UNRELATED])
    assert consolidate(m, fact_teller(asked), threshold=0.1, force=True) == []
    assert asked == [], "no group of similar lessons: the model is not asked"


def test_insights_come_from_similar_lessons_and_are_strategies():
    asked: list[str] = []
    m = ReflectionManager(HashingEmbeddings())
    m.consolidation_floor = 0.8  # hashed words: unrelated tasks share "find the year"
    verdicts = [lesson(t, VERDICTS[0]) for t, _ in BIRTH_YEARS]
    members = [lesson(t, s) for t, s in BIRTH_YEARS]
    m.save_many([*[lesson(t, s) for t, s in UNRELATED], *verdicts, *members])
    insights = consolidate(m, fact_teller(asked), threshold=0.1, force=True)
    assert [i.reflection for i in insights] == [
        "Search the biography for the birth date, then quote the year it states."
    ]
    (insight,) = insights
    assert sorted(insight.sources) == sorted(r.id for r in members)
    assert insight.task == "find the year a person was born"
    assert all(u not in p for p in asked for u, _ in UNRELATED), "never shown to the model"
    assert all("good enough" not in p for p in asked)


def test_every_member_of_a_group_is_similar_to_every_other():
    from memory.reflections.distill import similar_groups

    a, b, c = np.eye(3)
    ab, bc = (a + b) / np.sqrt(2), (b + c) / np.sqrt(2)
    # "ab" is close to "a" and to "bc", but "a" and "bc" have nothing in common
    vectors = np.array([a, bc, ab])
    groups = similar_groups(vectors, floor=0.5, min_size=2)
    assert groups == [[0, 2]], "the seed's neighbours must also be each other's"
    assert similar_groups(np.array([a, b, c]), floor=0.5, min_size=2) == []


def test_a_lesson_from_another_task_comes_as_its_strategy_only():
    """What the carried stream retrieved for the Kent Baer stadium question was a verdict on
    another question naming its facts; across tasks only what holds for any task of the kind
    reaches the prompt, while the same task (a retry, Reflexion's next trial) gets it whole."""
    from memory.reflections.lessons import strategy

    text = (
        "Search the coach's biography for the stadium, not the team page. The information "
        "about Kurt Schuschnigg's appointment in 1934 supports this conclusion."
    )
    assert strategy(text) == "Search the coach's biography for the stadium, not the team page."
    assert strategy("The answer is Little Brown Stein. Check the 1988 issue.") == ""
    # a quoted name is a name (the 1.5B's lesson on a disagreement, dev60 at 2560a06)
    quoted = "Read the question and the evidence. Therefore, the correct answer is 'Romeo'."
    assert strategy(quoted) == "Read the question and the evidence."
    memory = AgentMemory(new_store(), min_relevance=0.0)
    memory.save_reflection(lesson("Which stadium did Kent Baer coach at?", text))
    memory.save_reflection(lesson("Where did Kent Baer play?", "Quote Little Brown Stein."))
    across = memory.relevant_reflections("Which stadium did Kent Baer coach in?", k=3)
    assert [r.reflection for r in across] == [strategy(text)]  # the other has no strategy
    same = memory.relevant_reflections("which stadium did Kent Baer coach at", k=3)
    assert text in [r.reflection for r in same]


def test_only_advice_crosses_to_another_task():
    """What reached the Kent Baer question's first task in the carried stream at 9408f7f: three
    lessons of other questions, whose "strategies" were verdicts ("Therefore, the result is
    accurate and sufficient.") and statements about their attempts. Fresh saw no memory there,
    and the same search hits gave another answer. Across tasks only advice goes."""
    from memory.reflections.lessons import is_advice, strategy

    advice = (
        "When faced with a task of finding a specific person or event based on evidence, it is "
        "important to carefully read and analyze the given information."
    )
    carried = [
        f"{advice} Therefore, the result is accurate and sufficient.",
        "The result is good enough. Therefore, the result is accurate and sufficient.",
        "The information is directly supported by the evidence and does not require any further "
        "research. No further research is required.",
        "In this case, the passage from [1] provides the information we need. No further action "
        "is needed. There is no need to retry the task. The reasons are that the result is "
        "accurate, and the strategy advises to always read the evidence.",
        "Mesut Özil played for Burnley F.C. season, the evidence directly supports the answer.",
    ]
    assert [strategy(t) for t in carried] == [advice, "", "", "", ""]
    kept = [
        "Search the biography instead of the first hit.",
        "Quoting the birth line of the biography worked.",
        "If two passages disagree, prefer the one that names the question's subject.",
        "The mistake to avoid is to make up the answer based on the information provided.",
    ]
    assert [is_advice(s) for s in kept] == [True] * len(kept)
    assert not is_advice("To.") and not is_advice("Her portrayals have garnered nominations.")


def test_a_strategy_learned_on_several_tasks_fills_one_slot_only():
    """In the carried stream the same strategy, stored with each task it was learned on, came
    back three times for one question and crowded out every other lesson."""
    memory = AgentMemory(new_store(), min_relevance=-1.0)
    band = (
        "When finding out how many bands each band has been a member of, look for information "
        "in multiple sources that list their membership history."
    )
    for task in ("Find the bands of Jonny Craig", "Count Pete Doherty's bands", "Compare both"):
        memory.save_reflection(lesson(task, band))
    memory.save_reflection(lesson("Find the year Creed disbanded", STRATEGIES[3]))
    found = [r.reflection for r in memory.relevant_reflections("Which band has more members?", 3)]
    assert sorted(found) == sorted([band, STRATEGIES[3]])
