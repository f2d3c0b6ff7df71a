"""Reflexion's protocol with a scripted answerer: later trials run only on failures, lessons
reach the next trial of the reflections arm only, the curve is printed beside the reference."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from evals.hotpotqa import jobs as hotpotqa_jobs
from evals.hotpotqa.dataset import load_hotpotqa
from evals.hotpotqa.reflexion import ReflexionSettings, run_reflexion, solved_curves
from tests.conftest import DATA

DEV60 = DATA / "hotpotqa" / "distractor_dev60.json"
QS = load_hotpotqa(DEV60, limit=4)
GOLD = {q.question: q.answer for q in QS}
SEEN: list[tuple[str, str]] = []


def runner(
    *, model: str, max_retries: int, home: str, graph: str, reflections: bool, callbacks: Any
) -> Any:
    """Right at once on question 0; right on the next trial when a lesson for the question is
    in memory (and memory is on); never on question 3."""

    def answer_fn(question: str, paragraphs: Any) -> tuple[str, list[str]]:
        SEEN.append((Path(home).parent.name, question))
        lesson = Path(home) / "lessons" / str(abs(hash(question)))
        helped = reflections and lesson.exists()
        right = question == QS[0].question or (helped and question != QS[3].question)
        return (GOLD[question] if right else "no idea"), []

    return answer_fn


def fake_reflect(payload: dict[str, Any], q: Any, models: Any, **_: Any) -> None:
    """The lesson of the previous trial's answer (`reflect_on`), written by the retry."""
    folder = Path(payload["home"]) / "lessons"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / str(abs(hash(q.question)))).write_text(payload["reflect_on"]["answer"])
    return None


@pytest.fixture
def settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ReflexionSettings:
    monkeypatch.setattr(hotpotqa_jobs, "_reflect", fake_reflect)
    SEEN.clear()
    return ReflexionSettings(
        file=DEV60,
        out=tmp_path / "out",
        trials=3,
        limit=4,
        runner=f"{__name__}:runner",
        model="fake",
    )


def test_trials_run_on_failures_and_reflections_help_only_their_arm(settings) -> None:
    log = run_reflexion(settings, out=io.StringIO())
    ids = [q.id for q in QS]
    curves = solved_curves(log, settings.arms, ids)
    assert curves == {"reflections": [0.25, 0.75, 0.75], "no-reflections": [0.25, 0.25, 0.25]}
    asked = [q for arm, q in SEEN if arm == "reflections"]
    assert len(asked) == 4 + 3 + 1  # trial 2: the 3 failures; trial 3: question 3 only
    lessons = list((settings.out / "memory" / "reflections").glob("*/lessons/*"))
    assert len(lessons) == 3 and not list(
        (settings.out / "memory").glob("no-reflections/*/lessons")
    )
    assert {p.parent.parent.name for p in lessons} == {q.id for q in QS[1:]}  # one per question


def test_rerun_resumes_every_trial(settings) -> None:
    run_reflexion(settings, out=io.StringIO())
    first = len(SEEN)
    out = io.StringIO()
    run_reflexion(settings, out=out)
    assert len(SEEN) == first and "resuming: 8/8 already done" in out.getvalue()


def test_trial_one_runs_once_and_the_other_arm_shares_it(settings) -> None:
    """On a direct graph no lesson exists before trial 1, so its prompt is the same in both
    arms: it runs once, under the arm that writes lessons, and the other arm's trial 1 is that
    record's copy. A product graph (which learns within a run) runs each arm's own."""
    settings.graph = "direct"
    log = run_reflexion(settings, out=io.StringIO())
    first = [q for arm, q in SEEN[:4]]
    assert first == [q.question for q in QS] and len(SEEN) == 4 + 3 + 1 + 3 + 3
    records = log.records_by_key()
    for q in QS:
        ran, copy = records[f"reflections/trial1/{q.id}"], records[f"no-reflections/trial1/{q.id}"]
        assert copy["shared_from"] == "reflections" and "shared_from" not in ran
        assert (copy["answer"], copy["em"]) == (ran["answer"], ran["em"])
        assert copy["arm"] == "no-reflections"


def test_an_error_or_an_older_file_is_not_shared(settings, monkeypatch) -> None:
    settings.graph = "direct"
    real = hotpotqa_jobs.answer_question

    def flaky(payload, resources):
        record = real(payload, resources)
        if payload["id"] == QS[1].id and payload["arm"] == "reflections":
            return {**record, "error": "RuntimeError: the model died", "em": False}
        return record

    monkeypatch.setattr(hotpotqa_jobs, "answer_question", flaky)
    records = run_reflexion(settings, out=io.StringIO()).records_by_key()
    own = records[f"no-reflections/trial1/{QS[1].id}"]
    assert "shared_from" not in own and own["error"] is None  # ran on its own
    assert records[f"no-reflections/trial1/{QS[0].id}"]["shared_from"] == "reflections"

    older = settings.out.parent / "older"
    settings.out = older
    settings.arms = ["no-reflections"]
    settings.limit = 1
    run_reflexion(settings, out=io.StringIO())  # an older file: one arm's own trial 1
    settings.arms, settings.limit = ["reflections", "no-reflections"], 4
    SEEN.clear()
    records = run_reflexion(settings, out=io.StringIO()).records_by_key()
    assert not any("shared_from" in r for r in records.values())
    assert len([a for a, _ in SEEN[:7] if a == "no-reflections"]) == 3  # its other 3 ran


def test_cli_prints_curve_beside_published_endpoints(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import main
    from evals.hotpotqa import agent

    monkeypatch.setattr(hotpotqa_jobs, "_reflect", fake_reflect)
    monkeypatch.setattr(agent, "default_runner", runner)
    argv = [
        "--home",
        str(tmp_path),
        "eval",
        "hotpotqa-reflexion",
        "--file",
        str(DEV60),
        "--limit",
        "4",
        "--trials",
        "5",
        "--out",
        str(tmp_path / "o"),
        "--report",
        str(tmp_path / "r"),
    ]
    assert main.main(argv) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[2].split()[:2] == ["1", "1/4"] and "61%" in lines[2]
    assert "trials run: 3 of 5" not in out  # no-reflections keeps failing: all 5 trials run
    assert "trials run: 5 of 5" in out and "72%" in lines[6]
    assert "Only these endpoints are sourced" in out
    summary = json.loads((tmp_path / "r" / "summary.json").read_text())
    assert summary["plots"]["curve.png"]["reflections"][1] == [2, 0.75]
    assert (tmp_path / "r" / "trials.jsonl").is_file()


def any_lesson_runner(
    *, model: str, max_retries: int, home: str, graph: str, reflections: bool, callbacks: Any
) -> Any:
    """Right whenever any lesson is in its memory (so a lesson of another question would help
    too); never on question 3. Records how many lessons each call saw."""

    def answer_fn(question: str, paragraphs: Any) -> tuple[str, list[str]]:
        folder = Path(home) / "lessons"
        seen = len(list(folder.iterdir())) if reflections and folder.is_dir() else 0
        SEEN.append((Path(home).name, f"{question} lessons={seen}"))
        right = seen > 0 and question != QS[3].question
        return (GOLD[question] if right else "no idea"), []

    return answer_fn


def _outcomes(log: Any) -> dict[str, tuple[bool, str]]:
    return {r["key"]: (bool(r["em"]), r["answer"]) for r in log.records()}


def test_each_question_has_its_own_lessons_whatever_the_order(settings, tmp_path) -> None:
    """Reflexion's protocol: trial 1 sees no lesson, trial k only its question's lessons, so
    the same questions in the reverse order give the same results."""
    data = json.loads(DEV60.read_text())[:4]
    reverse = tmp_path / "reverse.json"
    reverse.write_text(json.dumps(data[::-1]))
    settings.runner = f"{__name__}:any_lesson_runner"
    forward = _outcomes(run_reflexion(settings, out=io.StringIO()))
    first_trial = [seen for _, seen in SEEN[:8]]  # both arms' trial 1
    assert all(seen.endswith("lessons=0") for seen in first_trial), first_trial
    assert all(int(seen.rsplit("=", 1)[1]) <= 2 for _, seen in SEEN)  # its own trials only
    settings.file, settings.out = reverse, tmp_path / "reverse"
    backward = _outcomes(run_reflexion(settings, out=io.StringIO()))
    assert forward == backward
    assert sum(em for em, _ in forward.values()) == 3  # trial 2 solves all but question 3
