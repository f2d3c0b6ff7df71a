"""The HotpotQA AnswerFn drives the reflective graph over the question's own paragraphs."""

from __future__ import annotations

from evals.hotpotqa.agent import make_answer_fn
from evals.hotpotqa.dataset import Paragraph
from evals.hotpotqa.metrics import exact_match_score
from tests.unit.research_script import Script, wire  # noqa: F401  (fixture)

RESEARCH = {"answer_first": False}  # the run researches: what its check and memory do


class HotpotScript(Script):
    def __call__(self, prompt, title, tools, messages):
        if title == "FinalAnswer":  # the run's answer is what is scored: no extra call
            return {"answer": "1815", "explanation": "She was born in 1815."}
        return super().__call__(prompt, title, tools, messages)


def test_answer_fn_runs_the_graph_on_a_corpus_of_the_paragraphs(wire, isolated_home):  # noqa: F811
    wire(HotpotScript([False] * 10))
    fn = make_answer_fn(
        model="local", models=wire.models, max_retries=1, home=str(isolated_home), context=RESEARCH
    )
    paragraphs = [
        Paragraph("Ada Lovelace", ["Ada Lovelace was born in 1815."]),
        Paragraph("Charles Babbage", ["Babbage designed the Analytical Engine."]),
    ]
    answer, trials = fn("When was Ada Lovelace born?", paragraphs)
    assert exact_match_score(answer, "1815") and trials == [answer]
    saved = list((isolated_home / "hotpotqa").glob("*/passages.jsonl"))
    assert len(saved) == 1 and "Babbage designed" in saved[0].read_text()


def _reflections_in(home):
    from memory.agent_memory import AgentMemory
    from memory.stores.sqlite_store import SqliteStore
    from tests.unit.fakes import HashEmbeddings

    store = SqliteStore.open(home, HashEmbeddings(384))
    try:
        return AgentMemory(store).list_reflections()
    finally:
        store.close()


def test_memory_on_saves_in_the_home_store_and_off_saves_nothing(wire, tmp_path):  # noqa: F811
    from evals.common.calls import CallCounter

    paragraphs = [Paragraph("Ada Lovelace", ["Ada Lovelace was born in 1815."])]
    model = wire(HotpotScript([False] * 10))
    counter = CallCounter()
    on = make_answer_fn(
        model="local",
        models=wire.models,
        max_retries=0,
        home=str(tmp_path / "on"),
        callbacks=[counter],
    )
    assert exact_match_score(on("When was Ada Lovelace born?", paragraphs)[0], "1815")
    assert counter.calls == len(model.calls) > 1  # every call seen, the short answer's too
    assert _reflections_in(tmp_path / "on")  # the graph's reflections, in the project store
    off = make_answer_fn(
        model="local",
        models=wire.models,
        max_retries=0,
        home=str(tmp_path / "off"),
        reflections=False,
    )
    off("When was Ada Lovelace born?", paragraphs)
    assert not _reflections_in(tmp_path / "off")


def test_a_wrong_answers_lesson_lands_where_the_graph_reads(wire, tmp_path):  # noqa: F811
    from evals.hotpotqa import jobs as hotpotqa_jobs
    from evals.hotpotqa.dataset import HotpotQuestion

    wire(lambda prompt, title, tools, messages: {"reflection": "Check the birth year."})
    q = HotpotQuestion("q1", "When was Ada born?", "1815", ())
    payload = {
        "home": str(tmp_path),
        "model": "local",
        "reflect_on": {"trial": 1, "answer": "1820"},
    }
    counter = hotpotqa_jobs.CallCounter()  # the lesson's call is part of the retry's cost
    assert hotpotqa_jobs._reflect(payload, q, wire.models, callbacks=[counter]) is None
    (lesson,) = _reflections_in(tmp_path)
    assert lesson.reflection == "Check the birth year." and lesson.judgment.needs_retry
    assert counter.calls == 1


def test_a_later_lesson_is_written_knowing_the_earlier_ones(wire, tmp_path):  # noqa: F811
    """The retry's reflector sees the lessons of the question's earlier failures (a repeated
    answer gave the 1.5B the same lesson again, word for word); not the lesson it is writing
    (a cut job's rerun), and the text task's own things in its "be concrete" clause."""
    from evals.hotpotqa import jobs as hotpotqa_jobs
    from evals.hotpotqa.dataset import HotpotQuestion

    prompts, lessons = [], iter(["Read the birth year.", "Read Ada's own paragraph.", "Again."])
    wire(lambda prompt, *_: prompts.append(prompt) or {"reflection": next(lessons)})
    q = HotpotQuestion("q1", "When was Ada born?", "1815", ())
    for trial in (1, 2, 2):  # trial 3's retry is cut and run again
        retry = {"home": str(tmp_path), "model": "local", "trial": trial + 1}
        retry["reflect_on"] = {"trial": trial, "answer": "1820"}
        assert hotpotqa_jobs._reflect(retry, q, wire.models) is None
    first, second, rerun = prompts
    assert "<earlier_lessons>" not in first and "the passage, the name" in first
    assert "the button" not in first
    assert "<earlier_lessons>\n- Read the birth year.\n</earlier_lessons>" in second
    assert "Read Ada's own paragraph." not in rerun and "Read the birth year." in rerun
    assert sorted(r.reflection for r in _reflections_in(tmp_path)) == [
        "Again.",
        "Read the birth year.",
    ]


def test_direct_answer_reads_past_lessons_only_with_memory_on(wire, tmp_path):  # noqa: F811
    from evals.hotpotqa import jobs as hotpotqa_jobs
    from evals.hotpotqa.dataset import HotpotQuestion

    prompts = []

    def script(prompt, title, tools, messages):
        prompts.append(prompt)
        return (
            {"reflection": "Read the birth year."}
            if title == "EpisodeLesson"
            else {"answer": "1815"}
        )

    wire(script)
    q = HotpotQuestion("q1", "When was Ada born?", "1815", ())
    retry = {"home": str(tmp_path), "model": "local", "reflect_on": {"trial": 1, "answer": "1820"}}
    hotpotqa_jobs._reflect(retry, q, wire.models)
    paragraphs = [Paragraph("Ada Lovelace", ["Ada Lovelace was born in 1815."])]
    on = make_answer_fn(
        model="local", models=wire.models, max_retries=0, home=str(tmp_path), graph_name="direct"
    )
    assert on(q.question, paragraphs) == ("1815", ["1815"])
    assert "Read the birth year." in prompts[-1] and "born in 1815" in prompts[-1]
    off = make_answer_fn(
        model="local",
        models=wire.models,
        max_retries=0,
        home=str(tmp_path),
        graph_name="direct",
        reflections=False,
    )
    off(q.question, paragraphs)
    assert "Read the birth year." not in prompts[-1] and len(prompts) == 3


def test_a_short_answer_of_debris_only_is_asked_again(wire, tmp_path):  # noqa: F811
    """A small model's answer holding only `}` would leave the answer empty."""
    replies = iter([{"answer": "}"}, {"answer": "Nick Park"}])
    wire(lambda prompt, title, tools, messages: next(replies))
    fn = make_answer_fn(
        model="local",
        models=wire.models,
        max_retries=0,
        home=str(tmp_path),
        graph_name="direct-candidates",
        reflections=False,
    )
    paragraphs = [Paragraph("Nick Park", ["Nick Park created Wallace and Gromit."])]
    assert fn("Who created Wallace and Gromit?", paragraphs) == ("Nick Park", ["Nick Park"])


def test_paragraphs_without_a_candidate_get_a_written_short_answer(wire, tmp_path):  # noqa: F811
    titles = []
    wire(lambda prompt, title, tools, messages: titles.append(title) or {"answer": "a river"})
    fn = make_answer_fn(
        model="local",
        models=wire.models,
        max_retries=0,
        home=str(tmp_path),
        graph_name="direct-candidates",
        reflections=False,
    )
    assert fn("what flows?", [Paragraph("", ["water flows."])]) == ("a river", ["a river"])
    assert titles == ["ShortAnswer"]


def test_the_answer_fn_tells_what_the_check_did(wire, isolated_home):  # noqa: F811
    from tests.unit.research_script import ShortScript

    wire(ShortScript("Hawaii County, Hawaii", "Hawaii County"))
    fn = make_answer_fn(
        model="local", models=wire.models, max_retries=0, home=str(isolated_home), context=RESEARCH
    )
    answer, _ = fn("In what county?", [Paragraph("Hawaii", ["Hawaii County is a county."])])
    assert answer == "Hawaii County"
    assert fn.last_check == {
        "research": "Hawaii County, Hawaii",
        "direct": "Hawaii County",
        "chosen": "Hawaii County",
        "how": "agreed",
    }


def test_a_gold_verdict_relabels_the_run_the_answer_fn_names(wire, isolated_home):  # noqa: F811
    """`eval hotpotqa --verdict gold`: the true answer, not the run's agreeing readings,
    judges what the run taught (evals.hotpotqa.jobs.gold_verdict)."""
    from evals.hotpotqa.jobs import gold_verdict
    from memory.agent_memory import AgentMemory
    from memory.stores.sqlite_store import SqliteStore
    from tests.unit.fakes import HashEmbeddings
    from tests.unit.research_script import ShortScript

    wire(ShortScript("Hawaii County, Hawaii", "Hawaii County"))
    fn = make_answer_fn(
        model="local", models=wire.models, max_retries=0, home=str(isolated_home), context=RESEARCH
    )
    assert fn.last_run is None
    fn("In what county?", [Paragraph("Hawaii", ["Hawaii County is a county."])])
    payload = {"home": str(isolated_home), "model": "local"}

    def recorded():
        store = SqliteStore.open(isolated_home, HashEmbeddings(384))
        try:
            memory = AgentMemory(store)
            return memory.trajectory("research", fn.last_run), memory.workflows("research")
        finally:
            store.close()

    run, taught = recorded()
    assert run.success and run.judged_by == "answer-check"  # the readings agreed
    assert [w.provenance.sources for w in taught] == [[fn.last_run]]
    verdict = gold_verdict(payload, wire.models, fn.last_run, False, "hotpotqa/1/q")
    assert verdict == {"right": False, "forgotten": [taught[0].name], "learned": []}
    run, taught = recorded()
    assert not run.success and run.judged_by == "gold" and taught == []
    missing = gold_verdict(payload, wire.models, None, True, "hotpotqa/1/q")
    assert missing == {"right": True, "error": "the run recorded no trajectory to judge"}
    # whatever goes wrong in the verdict, the scored answer stands and its record says why
    gone = gold_verdict(payload, wire.models, "no-such-run", True, "hotpotqa/1/q")
    assert gone == {
        "right": True,
        "error": "LookupError: no recorded run 'no-such-run' in this memory",
    }


def test_a_run_of_one_task_is_judged_by_its_attempt(wire, isolated_home):  # noqa: F811
    from evals.hotpotqa.jobs import gold_verdict
    from tests.unit.research_script import ShortScript

    script = ShortScript("Hawaii County, Hawaii", "Hawaii County")
    script.plan = []  # the request is the one task: its attempt is the run
    wire(script)
    fn = make_answer_fn(
        model="local", models=wire.models, max_retries=1, home=str(isolated_home), context=RESEARCH
    )
    fn("In what county?", [Paragraph("Hawaii", ["Hawaii County is a county."])])
    payload = {"home": str(isolated_home), "model": "local"}
    assert fn.last_run is not None
    verdict = gold_verdict(payload, wire.models, fn.last_run, False, "hotpotqa/1/q")
    assert "error" not in verdict and verdict["right"] is False
