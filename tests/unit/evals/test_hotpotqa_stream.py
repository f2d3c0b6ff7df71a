"""`eval hotpotqa-stream` with a scripted answerer: arms differ only by their memory, carried
memory reaches later questions, the report keys every arm by name, a rerun resumes, and a
finished `eval hotpotqa --memory fresh` run stands as the `fresh` arm."""

from __future__ import annotations

import io
import json
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from evals.hotpotqa.dataset import load_hotpotqa
from evals.hotpotqa.single import HotpotSettings, run_single
from evals.hotpotqa.stream import StreamSettings, run_stream, write_stream_report
from main import main
from tests.conftest import DATA

DEV60 = DATA / "hotpotqa" / "distractor_dev60.json"
QS = load_hotpotqa(DEV60, limit=4)
GOLD = {q.question: q.answer for q in QS}
ASKED: list[tuple[str, dict[str, Any]]] = []


def runner(
    *,
    model: str,
    max_retries: int,
    home: str,
    graph: str,
    reflections: bool,
    callbacks: Any,
    context: dict[str, Any] | None = None,
) -> Any:
    """Leaves a lesson in its home after each question; right when an earlier question's
    lesson is there and reflections reach its prompts (reflections_k > 0), which it tells as
    the graphs' answer functions do (`last_recalled`)."""

    class AnswerFn:
        last_recalled: list[str] = []

        def __call__(self, question: str, paragraphs: Any) -> tuple[str, list[str]]:
            ASKED.append((home, dict(context or {})))
            lessons = Path(home) / "lessons"
            shown = (context or {}).get("reflections_k", 3) > 0
            self.last_recalled = sorted(p.name for p in lessons.glob("*")) if shown else []
            lessons.mkdir(parents=True, exist_ok=True)
            (lessons / str(abs(hash(question)))).write_text("lesson")
            return (GOLD[question] if self.last_recalled else "no idea"), []

    return AnswerFn()


def _base(out: Path) -> HotpotSettings:
    return HotpotSettings(
        file=DEV60, out=out, limit=4, model="fake", max_tool_steps=0, runner=f"{__name__}:runner"
    )


@pytest.fixture(autouse=True)
def _clear() -> None:
    ASKED.clear()


def test_carried_memory_reaches_later_questions_only_in_carry_arms(tmp_path):
    arms = ["fresh", "carry", "carry-workflows", "carry-successes"]
    s = StreamSettings(_base(tmp_path / "out"), arms=arms)
    said = io.StringIO()
    by_arm = run_stream(s, QS, out=said)
    assert said.getvalue().count("recalled=") == 2 * 3  # carry's and carry-successes' 3 lines
    right = {arm: [bool(r["em"]) for r in rows] for arm, rows in by_arm.items()}
    assert right["fresh"] == [False] * 4
    assert right["carry"] == [False, True, True, True]  # the first question had nothing to use
    assert right["carry-workflows"] == [False] * 4  # reflections_k=0: no lesson in a prompt
    assert right["carry-successes"] == [False, True, True, True]
    fresh_homes = {h for h, _ in ASKED[:4]}
    assert len(fresh_homes) == 4  # a home per question
    assert {c.get("failure_lessons") for _, c in ASKED[12:]} == {False}

    page = write_stream_report(tmp_path / "report", by_arm, s)
    summary = json.loads((page.parent / "summary.json").read_text())
    assert set(summary["by_arm"]) == set(arms)
    carry = summary["by_arm"]["carry"]
    assert (carry["em"], carry["n"], carry["correct"]) == (0.75, 4, 3)
    assert carry["em_low"] < 0.75 < carry["em_high"]
    assert summary["by_arm"]["fresh"]["em"] == 0.0
    assert len(summary["plots"]["curve.png"]) == len(arms)  # a running-EM curve per arm
    # what earlier questions' memory reached, per arm, and the answers it moved
    reach = {arm: (a["reached"], a["recalled"]) for arm, a in summary["by_arm"].items()}
    assert reach["fresh"] == reach["carry-workflows"] == (0, 0.0)
    assert reach["carry"] == (3, (0 + 1 + 2 + 3) / 4)
    moved = [(m["arm"], m["id"], len(m["recalled"])) for m in summary["moved"]]
    assert moved == [(arm, q.id, i) for arm in arms[1::2] for i, q in enumerate(QS) if i]


def test_workflows_with_no_tool_steps_are_said_to_be_impossible_off_the_reflective_graph(
    tmp_path,
):
    """A task of one search leaves a one-step trajectory, and induction keeps workflows of two
    actions or more; only the reflective graph's checked runs of several tasks leave longer
    ones."""
    said = {}
    for graph, steps in [("single-path", 0), ("single-path", 2), ("reflective", 0)]:
        base = replace(_base(tmp_path / f"{graph}{steps}"), graph=graph, max_tool_steps=steps)
        out = io.StringIO()
        run_stream(StreamSettings(base, arms=["carry-workflows"]), QS[:1], out=out)
        said[graph, steps] = "no workflow can be learned" in out.getvalue()
    assert said == {("single-path", 0): True, ("single-path", 2): False, ("reflective", 0): False}


def test_a_rerun_resumes_and_a_fresh_hotpotqa_run_stands_as_the_fresh_arm(tmp_path):
    single = _base(tmp_path / "single")
    run_single(single, QS, out=io.StringIO())
    shutil.copytree(tmp_path / "single", tmp_path / "out" / "fresh")
    asked = len(ASKED)
    s = StreamSettings(_base(tmp_path / "out"), arms=["fresh", "carry"])
    run_stream(s, QS, out=io.StringIO())
    assert len(ASKED) == asked + 4  # only the carry arm ran
    run_stream(s, QS, out=io.StringIO())
    assert len(ASKED) == asked + 4  # and nothing on the rerun


def test_an_unknown_arm_is_a_usage_error(tmp_path, capsys):
    argv = ["--home", str(tmp_path), "eval", "hotpotqa-stream", "--file", str(DEV60)]
    assert main([*argv, "--arms", "fresh,forever", "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "unknown arm(s) ['forever']" in err and "carry-reflections" in err


def shared_runner(*, home: str, shared: Any, **_: Any) -> Any:
    """Records the shared memory each question's run was given."""

    def answer_fn(question: str, paragraphs: Any) -> tuple[str, list[str]]:
        ASKED.append((home, {"shared": shared}))
        return "no idea", []

    return answer_fn


def test_with_a_memory_url_each_arm_keeps_its_memory_apart_in_the_shared_database(tmp_path):
    url = "postgresql://bob:s3cret@db/agent"
    base = _base(tmp_path / "stream")
    base.runner, base.memory_url = f"{__name__}:shared_runner", url
    run_stream(StreamSettings(base, arms=["fresh", "carry"]), QS, out=io.StringIO())
    shared = [c["shared"] for _, c in ASKED]
    assert {s.url for s in shared} == {url}
    fresh, carry = shared[:4], shared[4:]
    assert {s.scope for s in carry} == {("eval", "stream", "carry", "memory")}  # one memory
    assert len({s.scope for s in fresh}) == 4  # a memory per question
    assert all(s.scope[:4] == ("eval", "stream", "fresh", "memory") for s in fresh)
    settings = (tmp_path / "stream" / "carry" / "results.jsonl.settings.json").read_text()
    assert json.loads(settings)["shared_memory"] is True and "s3cret" not in settings


def test_a_runner_that_cannot_share_memory_is_refused(tmp_path):
    base = _base(tmp_path / "out")
    base.memory_url = "postgresql://db/agent"
    with pytest.raises(ValueError, match="cannot keep memory shared"):  # the CLI: exit 2
        run_single(base, QS[:1], out=io.StringIO())


def test_gold_arms_judge_each_scored_run_by_its_true_answer(tmp_path):
    s = StreamSettings(_base(tmp_path / "out"), arms=["carry-workflows-gold"])
    arm = s.arm("carry-workflows-gold")
    assert arm.identity()["verdict"] == "gold" and "verdict" not in s.arm("carry").identity()
    by_arm = run_stream(s, QS, out=io.StringIO())
    # the scripted answerer records no run, and its records say so rather than pass silently
    verdicts = [r["verdict"] for r in by_arm["carry-workflows-gold"]]
    assert verdicts == [{"right": False, "error": "the run recorded no trajectory to judge"}] * len(
        QS
    )
    with pytest.raises(ValueError, match="needs memory"):
        replace(arm, memory="off").validate()
    with pytest.raises(ValueError, match="--verdict must be one of check, gold"):
        replace(arm, verdict="vibes").validate()
