"""Question forms: names and numbers abstracted, so a plan learned from one question fits
another of the same form and carries none of its entities (memory/workflows/forms.py)."""

from __future__ import annotations

import pytest
from langgraph.store.memory import InMemoryStore

from agents.research.learning import record_run, template_of
from agents.research.memory_context import fits_prompt
from core.context import Context
from memory.agent_memory import AgentMemory
from memory.trajectories import trajectory_from_tool_steps
from memory.workflows.forms import abstract_run, entities, form_key, form_text, question_form
from memory.workflows.online import induce_from_memory, induce_site, rule_workflows
from memory.workflows.types import Workflow
from tests.unit.fakes import HashEmbeddings


@pytest.mark.parametrize(
    ("question", "form"),
    [
        (
            "Are Darren Benjamin Shepherd and Rémi Lange both American?",
            "Are {name} and {name_2} both {name_3}?",
        ),
        (  # an article is not part of a name; a sentence's opener names nothing
            "Where was the first governor after the The Missouri Compromise from?",
            "Where was the first governor after the The {name} from?",
        ),
        (  # a quoted title is one name, "and" and all
            'The creator of "Wallace and Gromit" also created what animation comedy?',
            'The creator of "{name}" also created what animation comedy?',
        ),
        (
            "What team was led to victory in 1939 by a two-time All-American player?",
            "What team was led to victory in {name} by a two-time {name_2} player?",
        ),
        (
            "What year did it end? Which of the two was first?",
            "What year did it end? Which of the two was first?",
        ),  # fmt: skip
    ],
)
def test_a_question_form_abstracts_each_name_and_number(question, form):
    assert question_form(question) == form


def test_a_name_said_twice_is_one_placeholder_and_digits_inside_a_word_are_no_number():
    assert question_form("Did Ada Lovelace meet Babbage before Ada Lovelace turned 20?") == (
        "Did {name} meet {name_2} before {name} turned {name_3}?"
    )
    assert entities("corpus_search('Find the birth year of {name} part0')", quoted=False) == []


def test_a_run_is_abstracted_with_its_questions_names_and_what_it_found_becomes_found():
    form, steps = abstract_run(
        "Where was the first governor after the Missouri Compromise from?",
        [
            "search('Find the Missouri Compromise')",
            "search('Find when William King became the first governor of Maine')",
            "search('Find where William King was born')",
        ],
    )
    assert form == "Where was the first governor after the {name} from?"
    assert steps == [
        "search('Find the {name}')",
        "search('Find when {found} became the first governor of {found_2}')",
        "search('Find where {found} was born')",
    ]


def test_a_search_by_form_embeds_no_name_and_no_placeholder_syntax():
    assert form_text("Are Darren Shepherd and Rémi Lange both American?") == ("Are … and … both …?")


def _run(question: str, searches: list[str]):
    steps = [{"tool": "search", "args": {"query": q}} for q in searches]
    return trajectory_from_tool_steps(
        question, steps, website="research", success=True, judged_by="answer-check"
    )


def test_two_questions_of_one_form_teach_one_workflow_and_no_answer_leaks():
    first = _run(
        "Are Darren Shepherd and Rémi Lange both American?",
        ["Find the nationality of Darren Shepherd", "Find the nationality of Rémi Lange"],
    )
    second = _run(
        "Are Scott Derrickson and Ed Wood both American?",
        ["Find the nationality of Scott Derrickson", "Find the nationality of Ed Wood"],
    )
    [workflow] = rule_workflows([first], forms=True)
    assert workflow.name == "are_and_both"
    assert workflow.description == (
        "A successful run of a question like: Are {name} and {name_2} both {name_3}?"
    )
    assert workflow.steps == [
        "search('Find the nationality of {name}')",
        "search('Find the nationality of {name_2}')",
    ]
    result = induce_site([workflow], "research", [first, second], "rule", None, None, forms=True)
    assert result.kept == [] and all("duplicate" in d for d in result.dropped)
    # without forms each question is its own worked example, names and all
    concrete = rule_workflows([first, second])
    assert len({w.name for w in concrete}) == 2
    assert "Ed Wood" in concrete[1].steps[1] and "Ed Wood" in concrete[1].description


def test_two_forms_planned_with_as_many_searches_are_two_workflows_the_oldest_run_teaches():
    """Every run of n free-text searches shares one abstract trajectory, search(_)×n: a
    research run's template is its question's form, and only that de-duplicates."""
    memory = AgentMemory(InMemoryStore())
    later = Context(induction_every=10)  # record now, induce once all three are in
    runs = [
        ("Are Darren Shepherd and Rémi Lange both American?", ["Darren Shepherd", "Rémi Lange"]),
        ("Who directed the film that starred Ed Wood?", ["Ed Wood films", "director of Glen"]),
        ("Are Scott Derrickson and Ed Wood both American?", ["Scott Derrickson", "Ed Wood"]),
    ]
    # recorded newest first: the store's listing order must not decide which run teaches
    for n, (request, searches) in reversed(list(enumerate(runs))):
        steps = [[{"tool": "search", "args": {"q": s}, "observation": "..."}] for s in searches]
        record_run(
            memory, later, request=request, task_steps=steps, agreed=True, trajectory_id=f"r{n}"
        )
        memory.store.put(  # the runs were made a minute apart, the first one first
            ("trajectories", "research"),
            f"r{n}",
            {**memory.store.get(("trajectories", "research"), f"r{n}").value,
             "created": f"2026-11-27T10:0{n}:00+00:00"},
        )  # fmt: skip
    induce_from_memory(memory, "research", mode="rule", model=None, spec=None, forms=True)
    by_name = {w.name: w for w in memory.workflows("research")}
    assert sorted(by_name) == ["plan_are_and_both", "plan_who_directed_the_film_that_starred"]
    assert by_name["plan_are_and_both"].provenance.sources == ["r0"]
    runs_listed = memory.trajectories("research")
    assert [t.id for t in runs_listed] == ["r0", "r1", "r2"]
    assert runs_listed[2].template_id == "plan: Are {name} and {name_2} both {name_3}?"


def test_a_plan_reaches_only_a_planners_prompt_and_only_for_a_request_of_its_form():
    """On the HotpotQA stream, plans of other forms passed the relevance floor into 12 of 20
    questions' prompts, planners' and tasks' alike, and took two right answers."""
    store = InMemoryStore(index={"dims": 256, "embed": HashEmbeddings(256)})
    memory = AgentMemory(store, min_relevance=-1.0)  # every workflow passes the floor
    request = "Are Darren Shepherd and Rémi Lange both American?"
    plan = _run(request, ["Find the nationality of Darren Shepherd", "Find Rémi Lange"])
    task = _run("Find the nationality of Darren Shepherd", ["Darren Shepherd", "nationality"])
    plan.template_id, task.template_id = (
        template_of("plan", request),
        template_of("task", task.task),
    )
    learned = rule_workflows([plan, task], forms=True)
    assert [w.provenance.template for w in learned] == [plan.template_id, task.template_id]
    manual = Workflow("cite_sources", "Quote where each fact was found", ["search('{x}')"])
    memory.put_workflows("research", [*learned, manual])

    def reach(text: str, *, plan: bool) -> set[str]:
        found = memory.relevant_workflows(text, 5, where=fits_prompt(text, plan=plan))
        return {w.name for w in found}

    everything_else = {"task_find_the_nationality_of", "cite_sources"}
    same_form = "Are Scott Derrickson and Ed Wood both American?"
    assert reach(same_form, plan=True) == {"plan_are_and_both", *everything_else}
    assert reach(same_form, plan=False) == everything_else  # an executor's, a judge's prompt
    near_form = "Are both Scott Derrickson and Ed Wood from the same country?"
    assert reach(near_form, plan=True) == everything_else


def test_forms_that_one_name_would_hide_are_two_workflows_and_punctuation_is_no_new_form():
    memory = AgentMemory(InMemoryStore(), min_relevance=-1.0)
    requests = [
        "Who was Ada Lovelace?",
        "Who was Ada Lovelace, Countess of Lovelace?",  # the name drops placeholders
        "Who was born first, Ada Lovelace or Charles Babbage?",
        "Who was born first: Grace Hopper or Alan Turing?",  # the same form
    ]
    for n, request in enumerate(requests):
        steps = [[{"tool": "search", "args": {"q": f"{request} {i}"}, "observation": "..."}]
                 for i in range(2)]  # fmt: skip
        record_run(memory, Context(), request=request, task_steps=steps, agreed=True,
                   trajectory_id=f"r{n}")  # fmt: skip
    learned = memory.workflows("research")
    by_name = {w.name: w.provenance.template for w in learned}
    assert len(by_name) == 3 and by_name["plan_who_was"] == "plan: Who was {name}?"
    [apart] = [n for n in by_name if n.startswith("plan_who_was_") and "born" not in n]
    assert by_name[apart] == "plan: Who was {name}, {name_2}?"

    def planned_with(request: str) -> list[str]:
        return [w.name for w in learned if fits_prompt(request, plan=True)(w)]

    assert planned_with("Who was Charles Babbage?") == ["plan_who_was"]
    assert planned_with("Who was born first; Hopper or Turing?") == ["plan_who_was_born_first_or"]


def test_one_kind_whether_or_not_a_name_opens_with_an_article():
    films = "Which film has the director born first, {name} or The {name_2}?"
    assert form_key(films) == form_key(
        "Which film has the director born first, {name} or {name_2}?"
    )
    assert form_key("Is the {name} a river?") == form_key("Is {name} a river?")
    assert form_key("Who wrote the song?") != form_key("Who wrote song?")  # no name after it


def test_questions_of_one_kind_are_near_in_form_and_their_forms_embedded_once():
    from memory.workflows.kinds import KIND_SIMILARITY, kind_similarity

    class Counted(HashEmbeddings):
        asked: list[str] = []

        def embed_documents(self, texts):
            Counted.asked += texts
            return super().embed_documents(texts)

    embeddings = Counted()
    question = "Which film has the director born first, Kolya or Metropolis?"
    others = [
        "Which film has the director born first, Ikiru or Gniazdo?",
        "Where was the director of film Kolya born?",
    ]
    same, other = kind_similarity(embeddings, question, others)
    assert same >= KIND_SIMILARITY > other
    asked = len(Counted.asked)
    kind_similarity(embeddings, others[0], [question])  # both forms known: nothing embedded
    assert len(Counted.asked) == asked == 2  # the two forms, each once
