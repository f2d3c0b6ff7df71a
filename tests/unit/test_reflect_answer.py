"""reflect_on_answer: a run whose research and direct reading disagreed leaves a lesson learned
from that failure, which later runs retrieve; an agreement leaves nothing."""

from __future__ import annotations

from graphs import build_reflective_graph
from memory.reflections.lessons import NO_LESSON
from tests.unit.research_script import run, wire
from tests.unit.test_check_answer import ShortScript

__all__ = ["wire"]

STRATEGY = "When a question compares two people, count what each one's paragraph lists first."


class Disagreeing(ShortScript):
    """check_answer's readings differ (the choice follows the order: order-bound); the
    reflector then states `lesson` (None: an unusable reply)."""

    def __init__(self, research="Jonny Craig", direct="Pete Doherty", lesson=True) -> None:
        super().__init__(research, direct)
        self.lesson = lesson

    def __call__(self, prompt, title, tools, messages):
        if title == "FailureLesson":
            if not self.lesson:
                return "no idea"
            return {
                "reflection": "The paragraph on Jonny Craig lists five bands.",
                "strategy": STRATEGY,
            }
        return super().__call__(prompt, title, tools, messages)


def _answer_records(store) -> list[dict]:
    items = store.search(("reflections", "default"), limit=50)
    return [i.value for i in items if i.value.get("task_index") == -1]


def test_disagreeing_readings_leave_a_failure_lesson(wire):
    model = wire(Disagreeing())
    nodes, _, state = run(build_reflective_graph(), wire.context(max_retries=0), store=wire.store)
    assert nodes[-2:] == ["check_answer", "reflect_on_answer"]
    assert state["answer_check"]["how"] == "order-bound"
    [record] = _answer_records(wire.store)
    assert record["outcome"] == "failure" and record["judgment"]["verdict"] == "retry"
    assert record["reflection"] == f"The paragraph on Jonny Craig lists five bands. {STRATEGY}"
    assert record["task"] == state["query"]
    assert "'Jonny Craig'" in record["judgment"]["reasons"][0]
    assert "'Pete Doherty'" in record["judgment"]["reasons"][0]
    assert record["id"] in state["reflection_ids"]
    # the lesson's prompt opens as the choice asked second did (a local model's cached prefix)
    choice = [c["prompt"] for c in model.calls if c["title"] == "AnswerChoice"][-1]
    asked = next(c["prompt"] for c in model.calls if c["title"] == "FailureLesson")
    shared = choice.split("</question>")[0]
    assert asked.startswith(shared)
    assert "<answer>Jonny Craig</answer>\n<answer>Pete Doherty</answer>" in shared
    assert "'Pete Doherty' was kept" in asked


def test_a_later_question_retrieves_the_strategy_only(wire):
    wire(Disagreeing())
    run(build_reflective_graph(), wire.context(max_retries=0), store=wire.store)
    model = wire(Disagreeing())
    ctx = wire.context(max_retries=0, min_relevance=-1.0)
    run(build_reflective_graph(), ctx, query="Who was in more bands?", store=wire.store, thread="u")
    goal = next(c["prompt"] for c in model.calls if c["title"] == "GoalSetting")
    past = goal.split("<past_reflections>")[1].split("</past_reflections>")[0]
    assert STRATEGY in past
    assert "five bands" not in past  # another question: its strategy, not its particulars


def test_agreeing_readings_leave_nothing(wire):
    model = wire(Disagreeing(research="Hawaii County, Hawaii", direct="Hawaii County"))
    _, _, state = run(build_reflective_graph(), wire.context(max_retries=0), store=wire.store)
    assert state["answer_check"]["how"] == "agreed"
    assert "FailureLesson" not in [c["title"] for c in model.calls]
    assert _answer_records(wire.store) == []


def test_an_unusable_lesson_is_kept_as_the_runs_judgment_never_as_a_lesson(wire):
    wire(Disagreeing(lesson=False))
    run(build_reflective_graph(), wire.context(max_retries=0), store=wire.store)
    [record] = _answer_records(wire.store)
    assert record["reflection"] == NO_LESSON and record["outcome"] == "failure"
    assert record["importance"] == 0.1


def test_progress_names_a_saved_lesson_and_is_silent_otherwise():
    from cli.progress import Progress

    printer = Progress({}, max_retries=0)
    line = printer._describe("reflect_on_answer", {"reflection_ids": ["r"]})
    assert line == "[reflect_on_answer] the readings disagreed: lesson saved"
    assert printer._describe("reflect_on_answer", None) is None
