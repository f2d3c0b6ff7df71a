"""reflect_on_answer: a run whose research and direct reading disagreed leaves a lesson learned
from that failure, which later runs retrieve; an agreement leaves no lesson. Either way the
run's trajectory is recorded, judged by the check; an agreed one becomes a plan workflow."""

from __future__ import annotations

from graphs import build_reflective_graph
from memory.reflections.lessons import NO_LESSON
from tests.unit.research_script import TASKS, ShortScript, run, wire

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
    plan = next(c["prompt"] for c in model.calls if c["title"] == "DecomposedTasks")
    past = plan.split("<past_reflections>")[1].split("</past_reflections>")[0]
    assert STRATEGY in past
    assert "five bands" not in past  # another question: its strategy, not its particulars
    # goal setting reads the evidence with this request's own lessons only (it has none yet)
    goal = next(c["prompt"] for c in model.calls if c["title"] == "GoalSetting")
    assert STRATEGY not in goal.split("</past_reflections>")[0]


def test_agreeing_readings_leave_no_lesson(wire):
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


def _trajectories(store) -> dict[str, dict]:
    items = store.search(("trajectories", "research"), limit=50)
    return {i.key: i.value for i in items}


def _workflow_steps(store) -> list[list[str]]:
    return [i.value["steps"] for i in store.search(("workflows", "research"), limit=50)]


def test_a_run_whose_readings_agreed_is_recorded_whole_and_becomes_a_plan_workflow(wire):
    wire(Disagreeing(research="Hawaii County, Hawaii", direct="Hawaii County"))
    _, _, state = run(build_reflective_graph(), wire.context(max_retries=0), store=wire.store)
    recorded = _trajectories(wire.store)
    [whole] = [t for t in recorded.values() if t["judged_by"] == "answer-check"]
    assert whole["success"] and whole["task"] == state["query"]
    # every task's final steps, in plan order: one trajectory as long as theirs together
    per_task = [len(s or []) for s in state["task_steps"]]
    assert len(per_task) == len(state["tasks"]) and all(per_task)
    assert len(whole["steps"]) == sum(per_task)
    tasks_in_order = [s["action"] for s in whole["steps"] if "part0" in s["action"]]
    assert [a.split("'")[1].removesuffix(" part0") for a in tasks_in_order] == state["tasks"]
    assert len(recorded) == len(state["tasks"]) + 1  # each task's attempt, and the run
    # the run's steps became a workflow as long as it (a task's attempt gives shorter ones)
    assert len(whole["steps"]) in {len(steps) for steps in _workflow_steps(wire.store)}


def test_a_run_whose_readings_disagreed_is_recorded_as_a_failure_and_teaches_no_workflow(wire):
    wire(Disagreeing())
    _, _, state = run(build_reflective_graph(), wire.context(max_retries=0), store=wire.store)
    [whole] = [t for t in _trajectories(wire.store).values() if t["judged_by"] == "answer-check"]
    assert not whole["success"] and whole["task"] == state["query"]
    assert len(whole["steps"]) not in {len(steps) for steps in _workflow_steps(wire.store)}


def test_a_later_question_of_the_same_form_plans_with_the_run_workflow_abstracted(wire):
    wire(Disagreeing(research="Hawaii County, Hawaii", direct="Hawaii County"))
    run(build_reflective_graph(), wire.context(max_retries=0), store=wire.store)
    model = wire(Disagreeing(research="Hawaii County, Hawaii", direct="Hawaii County"))
    ctx = wire.context(max_retries=0)
    run(build_reflective_graph(), ctx, query="Who was Grace Hopper?", store=wire.store, thread="u")
    plan = next(c["prompt"] for c in model.calls if c["title"] == "DecomposedTasks")
    shown = plan.split("<workflows>")[1].split("</workflows>")[0]
    assert "A successful run of a question like: Who was {name}?" in shown
    # a planner sees the tasks the run researched, not the search calls (it would copy them)
    assert "\nFind what {name} wrote about the {found}\n" in shown and "search(" not in shown
    # a plan for questions of that form: no entity of the question it was learned from
    assert "Ada" not in shown and "Lovelace" not in shown and "Analytical" not in shown
    # and a plan for the request, shown to its planner alone: no task's prompt shows it, nor
    # goal setting's, which reads the evidence and answers (lessons only)
    shown_to = [c["title"] for c in model.calls if "## plan_who_was" in c["prompt"]]
    assert set(shown_to) == {"DecomposedTasks"} and len(model.calls) > len(shown_to)
    goal = next(c["prompt"] for c in model.calls if c["title"] == "GoalSetting")
    assert goal.split("<workflows>")[1].split("</workflows>")[0].strip() == "(none yet)"


def test_a_run_of_one_task_is_recorded_once(wire):
    script = Disagreeing(research="Hawaii County, Hawaii", direct="Hawaii County")
    script.plan = []  # the request is the one task
    wire(script)
    _, _, state = run(build_reflective_graph(), wire.context(max_retries=0), store=wire.store)
    assert len(state["tasks"]) == 1
    [only] = _trajectories(wire.store).values()
    assert only["judged_by"] == "reflection"


def test_a_task_that_builds_on_another_is_learned_as_its_own_search(wire):
    """The dependent task searches with the earlier results appended; the run's workflow keeps
    the task's search (a step cut at the line length was no action: the run was dropped)."""
    script = Disagreeing(research="Hawaii County, Hawaii", direct="Hawaii County")
    script.plan = [TASKS[0], {"task": TASKS[1], "depends_on": [1]}]
    wire(script)
    _, _, state = run(build_reflective_graph(), wire.context(max_retries=0), store=wire.store)
    searched = [c["prompt"] for c in wire.model.calls if c["tools"]]
    assert any("attempt 1 for Find the birth year" in p for p in searched)  # the search carried it
    [whole] = [t for t in _trajectories(wire.store).values() if t["judged_by"] == "answer-check"]
    firsts = [s["action"] for s in whole["steps"] if s["action"].startswith("search(")]
    assert firsts == [f"search({task!r})" for task in state["tasks"]]
    [workflow] = [s for s in _workflow_steps(wire.store) if len(s) == len(whole["steps"])]
    assert "attempt 1" not in " ".join(workflow)


def test_a_workflow_shown_as_a_plan_turns_one_argument_calls_into_tasks_and_keeps_the_rest():
    from agents.research.memory_context import as_plan
    from memory.workflows.types import Workflow

    workflow = Workflow(
        "w", "d", ["search('Find {name}')", "click('12', 'x')", "stop [done]", "search("]
    )
    assert as_plan(workflow).steps == ["Find {name}", "click('12', 'x')", "stop [done]", "search("]
    assert workflow.steps[0] == "search('Find {name}')"  # the stored workflow is untouched
