"""A carried lesson is advice, never a step: a plan step made of the words of the memory the
planner was shown, and of nothing the request or its evidence holds, is dropped. The steps and
lessons are the 1.5B planner's own from a HotpotQA stream with carried memory."""

from __future__ import annotations

from agents.research.decompose_query import PlannedTask, clean_tasks, copied_from_memory
from evals.hotpotqa.dataset import load_hotpotqa
from evals.hotpotqa.direct import paragraphs_text
from tests.conftest import DATA

DEV60 = DATA / "hotpotqa" / "distractor_dev60.json"
LONELY = next(q for q in load_hotpotqa(DEV60) if "If You Ever Get Lonely" in q.question)
MEMORY = (
    "<past_reflections>\n<ref_0>\n<task>Which of Jonny Craig and Pete Doherty has been a member "
    "of more bands ?</task>\n<reflection>When finding out how many bands each band has been a "
    "member of, look for information in multiple sources that list their membership history."
    "</reflection>\n</ref_0>\n</past_reflections>"
)
COPIED = (
    "Determine how many bands each of them has been a member by looking at multiple sources "
    "that list their membership history"
)
OWN = "Find the name of the band that covered 'If You Ever Get Lonely'"


def test_a_step_copied_from_a_lesson_of_another_question_is_dropped():
    read = paragraphs_text(LONELY.paragraphs)
    assert copied_from_memory(COPIED, MEMORY, f"{LONELY.question}\n{read}")
    assert not copied_from_memory(OWN, MEMORY, f"{LONELY.question}\n{read}")
    steps = [PlannedTask(task=OWN), PlannedTask(task=COPIED, depends_on=[1])]
    assert clean_tasks(steps, LONELY.question, memory=MEMORY, read=read) == (
        [OWN, LONELY.question.strip()],
        [[], [0]],
    )
    # with no memory shown, the same words are the planner's own: kept
    assert len(clean_tasks(steps, LONELY.question, read=read)[0]) == 3


def test_a_step_that_uses_a_lessons_words_about_this_request_is_kept():
    request = "Which of Jonny Craig and Pete Doherty has been a member of more bands?"
    step = "Find how many bands Jonny Craig has been a member of"
    assert not copied_from_memory(step, MEMORY, request)


def test_a_past_task_in_memory_may_be_a_step_again():
    """Only the lessons count: the task a lesson was learned on is a plan that worked."""
    past_task = "Find the lead vocalist's bands of Jonny Craig in the passages"
    memory = MEMORY.replace("<task>Which of", f"<task>{past_task}</task><task>Which of")
    assert not copied_from_memory(past_task, memory, "Who sang for Emarosa?")


def test_a_step_on_a_lessons_topic_in_its_own_words_is_kept():
    """Lessons are retrieved by similarity, so they share words with the steps of their kind;
    only a copy (a run of the lesson's words) is advice turned into a step."""
    memory = MEMORY.replace(
        "When finding out how many bands",
        "When comparing who was born first, find the birth dates of two people. When finding "
        "out how many bands",
    )
    assert not copied_from_memory(
        "Find the birth dates of both people", memory, "Who was born first, Scott or Ed?"
    )
    assert copied_from_memory(
        "Compare who was born first: find the birth dates of two people",
        memory,
        "Who was Scott?",
    )


# the 1.5B planner's second step on the Romeo and Juliet question (dev60, stream at 2560a06)
ROMEO = next(q for q in load_hotpotqa(DEV60) if "Benvolio" in q.question)
INSTRUCTION_COPY = (
    "List the steps (0 to 4) that find what the request needs before it can be answered, each "
    "done with a document search, web search or a browser: a person, work or place the request "
    "names only by description, each side of a comparison, each part of a report. The request "
    "itself is answered after them as the last task, so no step restates it; a request about "
    "one fact needs no step at all: []."
)


def test_a_step_that_copies_the_planners_instructions_is_dropped():
    read = paragraphs_text(ROMEO.paragraphs)
    own = (
        "Identify the character who secretly loves and marries a member of the rival house in "
        "William Shakespeare's tragedy 'Romeo and Juliet'"
    )
    steps = [PlannedTask(task=own), PlannedTask(task=INSTRUCTION_COPY, depends_on=[1])]
    tasks, depends_on = clean_tasks(steps, ROMEO.question, read=read)
    assert tasks == [own, ROMEO.question.strip()]
    assert depends_on == [[], [0]]


# ExpeL's protocol, distractor (docs/results/hotpotqa-expel-distractor): the worked example of a
# training question reached the planner of a test question, which planned that question's search
CELENE = next(q for q in load_hotpotqa(DEV60) if "Celene" in q.question)
WORKED_EXAMPLE = """<past_reflections>
(none yet)
</past_reflections>
<workflows>
## solved_5abe364e5542993f
A solved question of this kind: … featured …, who was voiced by a … actress who has done \
voice roles for what … spinoff series?
question: Lollipop Chainsaw featured Juliet Starling, who was voiced by a Canadian-American \
actress who has done voice roles for what Teen Titans spinoff series?
search: Identify the Canadian-American actress who voiced Juliet Starling in the Lollipop \
Chainsaw video game.
read: Tara Strong
answer: Teen Titans Go!
</workflows>"""


def test_a_step_copied_from_a_worked_example_of_another_question_is_dropped():
    read = paragraphs_text(CELENE.paragraphs)
    copy = (
        "Find the Canadian-American actress who voiced Juliet Starling in the Lollipop Chainsaw "
        "video game."
    )
    own = "Find the actress who played Celene in the film Walk All over Me"
    assert copied_from_memory(copy, WORKED_EXAMPLE, f"{CELENE.question}\n{read}")
    assert not copied_from_memory(own, WORKED_EXAMPLE, f"{CELENE.question}\n{read}")
    steps = [PlannedTask(task=copy), PlannedTask(task=own)]
    tasks, _ = clean_tasks(steps, CELENE.question, memory=WORKED_EXAMPLE, read=read)
    assert tasks == [own, CELENE.question.strip()]


def test_a_workflow_step_about_this_request_is_kept():
    """A plan of the request's own form shows its steps with the request's names filled in."""
    memory = WORKED_EXAMPLE.replace(
        "Identify the Canadian-American actress who voiced Juliet Starling in the Lollipop "
        "Chainsaw video game.",
        "Find the actress who played Celene in the film Walk All over Me",
    )
    step = "Find the actress who played Celene in the film Walk All over Me"
    assert not copied_from_memory(step, memory, CELENE.question)
