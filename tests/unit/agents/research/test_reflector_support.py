"""The reflector's verdict is overruled by the evidence: a result naming what nothing the task
read contains fails, whatever the reflector says, and the reflector is asked what to do
differently; every lesson carries a strategy, the part that reaches other tasks."""

from __future__ import annotations

from agents.research.records import lesson_text
from agents.research.support import unsupported
from graphs import build_reflective_graph
from memory.reflections.lessons import strategy
from tests.unit.research_script import TASKS, Script, run, wire

__all__ = ["wire"]

READ = (
    'VIVA Media GmbH (until 2004 "VIVA Media AG") is owned by Viacom. Anglo-Saxon roots. '
    'VIVA Polska (earlier "VIVApolska!") (source: passages.jsonl:2)'
)


def test_unsupported_are_the_names_and_numbers_nothing_read_contains():
    # a word, not a part of one: "VIVAP" is not read in "VIVApolska"
    assert unsupported('Its new acronym after 2004 is "VIVAP".', READ) == ["VIVAP"]
    assert unsupported("As Passage 2 says, VIVA Media's name.", READ) == []
    assert unsupported("It became GmbH in 2004; Viacom's since 1993.", READ) == ["1993"]
    # case, possessives and hyphenated parts do not make a read name unsupported
    assert unsupported("The owner, viacom's board, kept its Anglo-Saxon name.", READ) == []
    assert unsupported("Its Saxon-Norman roots, then Norman-Viacom.", READ) == [
        "Saxon-Norman",
        "Norman-Viacom",
    ]
    assert unsupported("No name is given.", READ) == []
    # a short answer's first word, an acronym anywhere: "VIVAP" alone is made up
    assert unsupported("VIVAP", READ) == ["VIVAP"] and unsupported("Viacom", READ) == []
    assert unsupported("Ruritania", READ) == ["Ruritania"]


def test_matching_is_lenient_where_a_false_made_up_would_cost_a_retry():
    read = "Rémi Lange, born 1,000 days before O’Brien; Sweden, America. 2 March 1972."
    for result in (
        "Remi Lange and RÉMI LANGE.",  # accents and case
        "Over 1000 days; O'Brien's book.",  # separators, apostrophes, possessives
        "He is Swedish, they are American.",  # the same stem
        "It was March 2, 1972.",
    ):
        assert unsupported(result, read) == [], result
    assert unsupported("He is French.", read) == ["French"]  # no read word shares its stem
    assert unsupported("Flann O'Brien, 1973.", read) == ["Flann", "1973"]
    # a clause's first word is not a name: after a colon, on a new line, in a list
    assert (
        unsupported("The answer is: Yes.\nBoth are owned by Viacom.\n- Owned since 2004", READ)
        == []
    )
    assert unsupported("Owned by: Bertelsmann, then Viacom", READ) == ["Bertelsmann"]


class MadeUp(Script):
    """The first attempt at task 0 names a place no passage holds; the reflector passes every
    attempt; asked after the overrule, it says what to do differently."""

    def __call__(self, prompt, title, tools, messages):
        if title == "FailureLesson":
            return {
                "reflection": "Do not add a birthplace the passage lacks.",
                "strategy": "When a task asks for a date, quote only the sentence that states it.",
            }
        reply = super().__call__(prompt, title, tools, messages)
        if title == "ReflectionOutput":
            reply["strategy"] = ""
        return reply

    def executor(self, prompt, messages):
        reply = super().executor(prompt, messages)
        if isinstance(reply, str) and reply.startswith(f"attempt 1 for {TASKS[0]}"):
            return reply.replace("born 1815", "born 1815 in Ruritania")
        return reply


def test_a_pass_on_a_made_up_name_is_overruled_retried_and_taught_from(wire):
    model = wire(MadeUp())
    run(build_reflective_graph(), wire.context(max_retries=1), store=wire.store)
    items = wire.store.search(("reflections", "default"), limit=50)
    first = {i.value["attempt"]: i.value for i in items if i.value["task"] == TASKS[0]}
    failed, retried = first[1], first[2]
    assert failed["judgment"]["verdict"] == "retry" and failed["outcome"] == "failure"
    assert "Ruritania" in failed["judgment"]["reasons"][0]
    assert failed["reflection"] == (
        "Do not add a birthplace the passage lacks. "
        "When a task asks for a date, quote only the sentence that states it."
    )
    assert retried["judgment"]["verdict"] == "pass"  # the retry named only what it read
    asked = [c["prompt"] for c in model.calls if c["title"] == "FailureLesson"]
    assert len(asked) == 1 and "it names Ruritania, which neither the request" in asked[0]
    others = [v for v in (i.value for i in items) if v["task"] != TASKS[0]]
    assert others and all(v["judgment"]["verdict"] == "pass" for v in others)


class Doubting(MadeUp):
    """The reflector itself asks for a retry of the made-up attempt."""

    def verdict(self, task):
        return self.attempts.get(task) == 1 and task == TASKS[0]


def test_a_reflector_that_already_failed_the_attempt_is_not_asked_again(wire):
    model = wire(Doubting())
    run(build_reflective_graph(), wire.context(max_retries=1), store=wire.store)
    assert not [c for c in model.calls if c["title"] == "FailureLesson"]
    items = wire.store.search(("reflections", "default"), limit=50)
    failed = next(i.value for i in items if i.value["task"] == TASKS[0] and i.value["attempt"] == 1)
    assert failed["judgment"]["reasons"] == ["checked"]  # its own verdict and reasons


class Padded(MadeUp):
    """The reflector gives the most reasons its grammar allows, some of them blank (as the
    1.5B did on a stream question): the overrule adds one more."""

    def __call__(self, prompt, title, tools, messages):
        reply = super().__call__(prompt, title, tools, messages)
        if title == "ReflectionOutput":
            reply["reasons"] = ["names 201", "book ", "", "  ", "read it"]
        return reply


def test_an_overruled_verdict_over_padded_reasons_keeps_the_run_and_its_reasons(wire):
    """Five reasons from the model plus the overrule's were six, one over the schema's bound:
    the run lost its whole answer to a validation error."""
    wire(Padded())
    _, _, state = run(build_reflective_graph(), wire.context(max_retries=1), store=wire.store)
    assert state["final_output"].startswith("FINAL: Ada Lovelace")
    items = wire.store.search(("reflections", "default"), limit=50)
    failed = next(i.value for i in items if i.value["task"] == TASKS[0] and i.value["attempt"] == 1)
    reasons = failed["judgment"]["reasons"]
    assert failed["judgment"]["verdict"] == "retry" and "Ruritania" in reasons[0]
    assert reasons[1:] == ["names 201", "book", "read it"]


def test_only_the_strategy_of_a_lesson_reaches_another_task():
    lesson = lesson_text(
        "Quote Ada Lovelace's birth line", "When a task asks for a year, quote its sentence"
    )
    assert lesson == (
        "Quote Ada Lovelace's birth line. When a task asks for a year, quote its sentence."
    )
    assert strategy(lesson) == "When a task asks for a year, quote its sentence."
    assert lesson_text("", "") == "" and lesson_text(" ", "Search twice!") == "Search twice!"


def test_what_a_task_builds_on_counts_as_read():
    """A result that repeats a name found by the task it builds on is read, not made up; the
    same name with no such dependency is overruled."""
    from agents.research.prompting import system_message
    from agents.research.reflect_on_task import judge_attempt
    from core.context import Context
    from tests.unit.fakes import ScriptedChatModel

    def passing(prompt, title, tools, messages):
        if title == "FailureLesson":
            return {"reflection": "Name only what was read.", "strategy": ""}
        return {"needs_retry": False, "confidence": 0.9, "reflection": "", "strategy": ""}

    state = {
        "query": "Where was the author of Ivanhoe born?",
        "task": "Find where the author of Ivanhoe was born",
        "task_index": 1,
        "result": "Its author, Walter Scott, was born in Edinburgh.",
        "task_evidence": "[1] Scott (source: scott.md)\nScott was born in Edinburgh.",
        "dependencies": [{"task": "Find the author of Ivanhoe", "result": "Walter Scott"}],
    }
    model = ScriptedChatModel(responder=passing, calls=[])
    system = system_message(Context())
    assert judge_attempt(state, model, system, "", "r1").judgment.verdict == "pass"
    alone = judge_attempt({**state, "dependencies": []}, model, system, "", "r2")
    assert alone.judgment.verdict == "retry" and "Walter" in alone.judgment.reasons[0]
    assert [c["title"] for c in model.calls].count("FailureLesson") == 1
