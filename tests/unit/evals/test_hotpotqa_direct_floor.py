"""`--graph direct` reads past lessons through the relevance floor (Context's default) and with
the embeddings the run names, so lessons about another question stay out of its prompt."""

from __future__ import annotations

from core.embeddings import HashingEmbeddings
from core.models import Models
from evals.common.memory_store import project_store
from evals.common.resources import WorkerResources
from evals.hotpotqa import jobs as hotpotqa_jobs
from evals.hotpotqa.agent import make_answer_fn
from evals.hotpotqa.dataset import Paragraph
from memory.agent_memory import AgentMemory
from memory.reflections.schema import Reflection, ReflectionJudgment
from tests.unit.research_script import wire  # noqa: F401  (fixture)

ADA = [
    ("When was Ada Lovelace born?", "Lovelace biography dates come first."),
    ("Whose daughter was Ada Lovelace?", "Lovelace parents: check Byron."),
]
PARAGRAPHS = [Paragraph("Seine", ["The Seine flows through Paris."])]


def _fill(home: str) -> None:
    with project_store(home, "local") as store:
        memory = AgentMemory(store)
        for task, lesson in ADA:
            judgment = ReflectionJudgment(needs_retry=True, confidence=0.9, verdict="fail")
            memory.save_reflection(Reflection(task=task, reflection=lesson, judgment=judgment))


def _direct_prompt(wire, home: str, question: str, **kw) -> str:  # noqa: F811
    prompts: list[str] = []
    wire(lambda prompt, *a: prompts.append(prompt) or {"answer": "x"})
    models = Models(
        chat=lambda spec: wire.model
    )  # real embeddings: the floor is calibrated on them
    make_answer_fn(
        model="local", max_retries=0, home=home, graph_name="direct", models=models, **kw
    )(question, PARAGRAPHS)
    return prompts[-1]


def test_unrelated_lessons_stay_out_of_the_direct_prompt(wire, tmp_path):  # noqa: F811
    wire(lambda *a: {"answer": "x"})
    _fill(str(tmp_path))
    unrelated = _direct_prompt(wire, str(tmp_path), "Which river flows through Paris?")
    assert "Lovelace" not in unrelated and "<lessons>" not in unrelated
    related = _direct_prompt(wire, str(tmp_path), "Where was Ada Lovelace born?")
    assert "Lovelace biography dates come first." in related


def test_the_payloads_embedding_model_reaches_the_direct_answerer(wire, tmp_path, monkeypatch):  # noqa: F811
    specs: list[str] = []

    def embeddings(spec: str = "local") -> HashingEmbeddings:
        specs.append(spec)
        return HashingEmbeddings(384)

    wire(lambda *a: "1815")
    record = _answer_job(wire, tmp_path, embeddings)
    assert record["error"] is None and record["em"], record
    assert specs and set(specs) == {"hashing:384"}


def _answer_job(wire, home, embeddings, **extra) -> dict:  # noqa: F811
    """The `--graph direct` job on `_question`, memory on, in a worker of its own."""
    resources = WorkerResources()
    resources.models = Models(chat=lambda spec: wire.model, embeddings=embeddings)
    resources.keep(("hotpotqa", "f"), lambda: {"q": _question()})
    payload = {
        "file": "f",
        "id": "q",
        "model": "local",
        "max_retries": 0,
        "graph": "direct",
        "home": str(home),
        "reflections": True,
        "embedding_model": "hashing:384",
        **extra,
    }
    try:
        return hotpotqa_jobs.answer_question(payload, resources)
    finally:
        resources.close()


def _question():
    from evals.hotpotqa.dataset import HotpotQuestion

    ada = Paragraph("Ada Lovelace", ["Ada Lovelace was born in 1815."])
    return HotpotQuestion("q", "When was Ada Lovelace born?", "1815", (*PARAGRAPHS, ada))


def test_a_retry_first_learns_from_the_wrong_answer_then_reads_its_lesson(wire, tmp_path):  # noqa: F811
    """Reflexion's step between trials, done by the retry: the reflector sees the paragraphs the
    answerer read (its CoT-with-context setting) and the failed answer, never the true answer;
    told it failed, it is asked for a diagnosis and a plan; the retry's prompt holds the
    lesson. The same job run again (cut, resumed) replaces the lesson rather than adding one."""
    prompts: list[tuple[str, str]] = []

    def model(prompt, title, *a):
        prompts.append((title, prompt))
        return {"reflection": "Read the birth line."} if title == "EpisodeLesson" else "1815"

    wire(model)
    retry = {"trial": 2, "reflect_on": {"trial": 1, "answer": "1816"}}
    embeddings = lambda s="": HashingEmbeddings(384)  # noqa: E731
    record = _answer_job(wire, tmp_path, embeddings, **retry)
    assert record["em"] and "reflection_error" not in record, record
    (title, reflector), (_, answerer) = prompts
    assert title == "EpisodeLesson"
    assert "<context>\nSeine: The Seine flows through Paris." in reflector  # as the answerer read
    assert "Ada Lovelace: Ada Lovelace was born in 1815." in reflector
    assert "<task>\nWhen was Ada Lovelace born?\n</task>" in reflector
    assert "answer: 1816" in reflector and "1815" not in reflector.split("</context>")[1]
    assert reflector.rstrip().split("</outcome>")[1].lstrip().startswith("The attempt failed.")
    # the lesson after the paragraphs, right before the question, with the wrong answer
    before, lesson = (
        answerer.split("</paragraphs>")[1].split("<question>")[0],
        "Read the birth line.",
    )
    assert lesson in before and "the answer '1816' did not match the correct answer" in before
    _answer_job(wire, tmp_path, embeddings, **retry)
    with project_store(str(tmp_path), "hashing:384") as store:
        assert len(AgentMemory(store).list_reflections()) == 1
