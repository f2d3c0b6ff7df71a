"""ExpeL's protocol (`eval hotpotqa --train`) with a scripted answerer and the real memory store
(hashing embeddings): training retries only wrong answers with their lesson, the training
memory holds a worked example per solved question and an insight per question solved after a
lesson (never one naming the answer), each test question of the train-memory arm starts from a
copy of it (its writes stay its own), no-memory starts empty, the report keys the arms by name
and traces what reached which prompt, and a rerun resumes without a call."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel

from evals.common.memory_store import project_store
from evals.hotpotqa import jobs as hotpotqa_jobs
from evals.hotpotqa.dataset import load_hotpotqa
from evals.hotpotqa.expel import ExpelSettings, run_expel, split
from evals.hotpotqa.expel_report import write_expel_report
from evals.hotpotqa.single import HotpotSettings
from memory.agent_memory import AgentMemory
from memory.reflections.schema import Reflection, ReflectionJudgment
from memory.workflows.forms import form_text
from tests.conftest import DATA

DEV60 = DATA / "hotpotqa" / "distractor_dev60.json"
QS = load_hotpotqa(DEV60, limit=6)
GOLD = {q.question: q.answer for q in QS}
EMBED = "hashing"
FORMS_01 = f"{form_text(QS[0].question)} / {form_text(QS[1].question)}"
CALLS: list[tuple[str, str]] = []  # (home, question) of every answer


def runner(
    *, model: str, max_retries: int, home: str, graph: str, reflections: bool, callbacks: Any
) -> Any:
    """Training: question 0 right at once, question 1 right once its lesson is in memory,
    question 2 never. Test: right when a worked example is in its memory, which it reports as
    the graphs do (`last_recalled`, `last_path`); it leaves a note in its home."""

    class AnswerFn:
        last_recalled: list[str] = []
        last_path: dict[str, Any] = {}

        def __call__(self, question: str, paragraphs: Any) -> tuple[str, list[str]]:
            CALLS.append((home, question))
            with project_store(home, EMBED) as store:
                memory = AgentMemory(store)
                lessons = [r for r in memory.list_reflections() if r.task == question]
                shown = [f"workflow:{w.name}" for w in memory.workflows("research")]
                shown += [r.id for r in memory.list_reflections() if r.kind == "insight"]
            (Path(home) / "note").write_text("written by a test question")
            self.last_recalled = shown
            self.last_path = {"first": "disagreed", "tasks": ["Find it"], "cited": ["Page"]}
            right = question == QS[0].question or (question == QS[1].question and lessons)
            right = right or any(s.startswith("workflow:") for s in shown)
            return (GOLD[question] if right else "no idea"), []

    return AnswerFn()


def fake_reflect(payload: dict[str, Any], q: Any, models: Any, **_: Any) -> None:
    """The retry's lesson, saved under the id Reflexion's step gives it."""
    job = hotpotqa_jobs.job_name(payload, q.id)
    rid = hotpotqa_jobs.lesson_id(job, int(payload["reflect_on"]["trial"]))
    with project_store(payload["home"], EMBED) as store:
        AgentMemory(store).save_reflection(
            Reflection(
                id=rid,
                task=q.question,
                reflection="Search for the second entity before answering.",
                judgment=ReflectionJudgment(needs_retry=True, confidence=0.9),
            )
        )
    return None


@pytest.fixture
def settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ExpelSettings:
    monkeypatch.setattr(hotpotqa_jobs, "_reflect", fake_reflect)
    CALLS.clear()
    base = HotpotSettings(
        file=DEV60,
        out=tmp_path / "out",
        limit=2,
        model="fake",
        max_retries=1,
        max_tool_steps=0,
        runner=f"{__name__}:runner",
    )
    return ExpelSettings(base, train=DEV60, train_limit=3, trials=2, embedding_model=EMBED)


def advice(*texts: str) -> FakeListChatModel:
    return FakeListChatModel(responses=list(texts))


def test_training_memory_reaches_the_test_questions_of_its_arm_only(settings):
    said = io.StringIO()
    result = run_expel(settings, out=said, chat=advice("Read both passages before answering."))
    train = [r for r in result["training"]]
    assert [(r["trial"], r["id"]) for r in train if r["trial"] == 2] == [
        (2, QS[1].id),
        (2, QS[2].id),
    ]  # only the wrong ones were retried
    kept = result["kept"]
    assert [(k["kind"], k["sources"] if k["kind"] == "insight" else k["from"]) for k in kept] == [
        ("example", QS[0].id),
        ("example", QS[1].id),
        ("insight", [QS[1].id]),  # solved only after its lesson: a fail/success pair
        ("insight", [QS[0].id, QS[1].id]),  # the list of successes
    ]
    assert kept[2]["text"] == kept[3]["text"] == "Read both passages before answering."
    # an insight is found by the forms of its questions: a prompt shows no training question
    with project_store(str(settings.trained().home), EMBED) as store:
        tasks = [r.task for r in AgentMemory(store).list_reflections() if r.kind == "insight"]
    assert sorted(tasks) == sorted([form_text(QS[1].question), FORMS_01])
    assert not any(q.question in t for q in QS[:2] for t in tasks)
    test_ids = [q.id for q in QS[3:5]]
    right = {arm: [bool(r["em"]) for r in rows] for arm, rows in result["by_arm"].items()}
    assert right == {"no-memory": [False, False], "train-memory": [True, True]}
    assert [r["id"] for r in result["by_arm"]["train-memory"]] == test_ids
    # each test question had its own copy: the training memory never got a test question's note
    assert not (settings.memory_home / "note").exists()
    homes = {h for h, q in CALLS if q in {QS[3].question, QS[4].question}}
    assert len(homes) == 4  # two arms x two questions, each its own home
    assert "== distilling: 2 of 3 training questions solved (1 at trial 1)" in said.getvalue()


def test_the_report_keys_arms_by_name_and_says_what_reached_which_question(settings, tmp_path):
    result = run_expel(settings, out=io.StringIO(), chat=advice("Read both passages first."))
    page = write_expel_report(tmp_path / "report", result, settings)
    summary = json.loads((page.parent / "summary.json").read_text())
    arms = summary["arms"]
    assert set(arms) == {"no-memory", "train-memory"}
    assert (arms["no-memory"]["em"], arms["train-memory"]["em"]) == (0.0, 1.0)
    assert arms["train-memory"]["n"] == 2 and arms["no-memory"]["calls"] == 0.0
    assert arms["no-memory"]["calls_p95"] == 0.0
    assert summary["training"]["solved"] == 2 and summary["training"]["insights"] == 2
    assert summary["split"] == {"train": sorted(q.id for q in QS[:3]), "test": [QS[3].id, QS[4].id]}
    froms = {m["from"] for r in summary["reached"] for m in r["memories"]}
    assert froms == {QS[0].id, QS[1].id}
    assert summary["seen_kind"]["questions"] == 2


def test_an_insight_that_names_the_answer_is_not_kept(settings):
    named = f"The answer is {QS[1].answer}."
    result = run_expel(settings, out=io.StringIO(), chat=advice(named))
    insights = [k for k in result["kept"] if k["kind"] == "insight"]
    assert [(k["id"], k["sources"]) for k in insights] == [
        (None, [QS[1].id]),
        (None, [QS[0].id, QS[1].id]),
    ]
    with project_store(str(settings.memory_home), EMBED) as store:
        assert [r for r in AgentMemory(store).list_reflections()] == []


def test_a_rerun_resumes_every_phase_without_answering_again(settings):
    run_expel(settings, out=io.StringIO(), chat=advice("Read both passages first."))
    before = len(CALLS)
    again = run_expel(settings, out=io.StringIO(), chat=advice("never asked"))
    assert len(CALLS) == before
    assert [k["kind"] for k in again["kept"]] == ["example", "example", "insight", "insight"]


def test_the_split_and_settings_are_checked(settings):
    train, test = split(settings)
    assert {q.id for q in train}.isdisjoint(q.id for q in test)
    assert len(test) == 2  # --limit applies to the test questions
    settings.train_limit = 60
    with pytest.raises(ValueError, match="none to test"):
        split(settings)
    settings.train_limit = 3
    settings.base.graph = "rag"
    with pytest.raises(ValueError, match="reflective"):
        settings.validate()


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--graph", "rag"], "reflective"),
        (["--train-limit", "60"], "none to test"),
        (["--trials", "0"], "at least 1"),
        (["--memory", "carry"], "--memory fresh"),
    ],
)
def test_the_command_refuses_bad_settings_in_one_line(tmp_path, capsys, extra, message):
    from main import main

    argv = ["--home", str(tmp_path / "home"), "eval", "hotpotqa", "--file", str(DEV60)]
    argv += ["--train", str(DEV60), "--out", str(tmp_path / "out"), *extra]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not (tmp_path / "out" / "train" / "results.jsonl").exists()  # nothing ran


def test_a_pool_of_files_is_the_corpus_of_training_and_test_alike(settings, tmp_path):
    """--pool DIR: training and every test arm search the paragraphs of every question file in
    DIR (the multihop corpus), not the training file's alone; the results say so."""
    import shutil

    pool = tmp_path / "pool"
    pool.mkdir()
    shutil.copy(DEV60, pool / DEV60.name)
    shutil.copy(DATA / "multihop" / "musique_dev100.json", pool / "musique_dev100.json")
    settings.base.setting, settings.base.pool = "pooled", pool
    settings.train_limit, settings.base.limit = 1, 1
    run_expel(settings, out=io.StringIO(), chat=advice("Read both passages first."))
    musique = load_hotpotqa(pool / "musique_dev100.json")[0].paragraphs[0].title
    for phase in ("train", "no-memory", "train-memory"):
        corpus = (settings.base.out / phase / "corpus" / "passages.jsonl").read_text("utf-8")
        assert musique in corpus and load_hotpotqa(DEV60)[0].paragraphs[0].title in corpus
    identity = json.loads(
        (settings.base.out / "no-memory" / "results.jsonl.settings.json").read_text()
    )
    assert identity["pool"] == str(pool)
    settings.base.setting = "distractor"
    with pytest.raises(ValueError, match="--setting pooled"):
        settings.validate()
