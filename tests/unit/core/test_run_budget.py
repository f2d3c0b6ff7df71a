"""Run budgets kept by the graph itself: every model a node gets from `ctx.chat` is counted and
refuses a call at a cap, with nothing for the host to add; before new work the run keeps one
call for its answer; a run at a cap ends `stopped`, with the answer it has or one put together
without a model; the CLI marks it partial (exit 6) and `--resume` finishes the rest."""

from __future__ import annotations

import json
import logging

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver

import main
from cli.errors import EXIT_PARTIAL
from core.run_budget import CapReached, Caps, RunBudget
from core.state import STATE_KEYS
from graphs import build_reflective_graph, build_single_path_graph
from tests.unit.research_script import STEPS, TASKS, Script, wire  # noqa: F401  (fixture)


def _fake(**usage: int) -> GenericFakeChatModel:
    meta = {"input_tokens": 0, "output_tokens": 0, "total_tokens": 0, **usage}
    return GenericFakeChatModel(messages=iter([AIMessage("x", usage_metadata=meta)] * 9))


def test_a_guarded_model_counts_and_refuses_the_call_past_its_cap():
    budget, model = RunBudget(), _fake(input_tokens=100, output_tokens=20)
    guarded = budget.guarded(model, Caps(max_calls=2))
    assert budget.guarded(model, Caps(max_calls=2)) is guarded  # one copy per model and caps
    assert model.callbacks is None  # the model given is left as it was
    guarded.invoke("a")
    guarded.invoke("b")
    with pytest.raises(CapReached) as refused:
        guarded.invoke("c")
    assert refused.value.cap == "max_calls" and (budget.calls, budget.tokens) == (2, 240)
    model.invoke("d")  # the original is not counted
    assert budget.calls == 2


def test_tokens_and_seconds_are_checked_before_each_call():
    budget = RunBudget()
    by_tokens = budget.guarded(_fake(input_tokens=300), Caps(max_tokens=300))
    by_tokens.invoke("a")  # a call's tokens are known when it ends: the next one is refused
    with pytest.raises(CapReached, match="max_tokens"):
        by_tokens.invoke("b")
    budget.started -= 10
    with pytest.raises(CapReached, match="max_seconds"):
        budget.guarded(_fake(), Caps(max_seconds=5)).invoke("c")


def test_a_reused_budget_counts_a_new_run_from_zero():
    budget = RunBudget()
    budget.begin("run-1")
    budget.record(calls=3, tokens=10)
    budget.begin("run-1")  # the same run going on (a resume in this process)
    assert budget.calls == 3
    budget.begin("run-2")
    assert (budget.calls, budget.tokens) == (0, 0)


def test_an_object_that_is_no_chat_model_is_used_uncounted_and_said_once(caplog):
    class Echo:
        def invoke(self, messages, **kwargs):
            return AIMessage("echo")

    echo = Echo()
    with caplog.at_level(logging.WARNING):
        assert RunBudget().guarded(echo, Caps(max_calls=1)) is echo
    budget = RunBudget()
    with caplog.at_level(logging.WARNING):
        budget.guarded(echo, Caps(max_calls=1))
        budget.guarded(echo, Caps(max_calls=1))
    said = [r.message for r in caplog.records if "not counted" in r.message]
    assert len(said) == 2  # once per run's budget


def _run(wire, graph=None, **settings):  # noqa: F811
    """A run as a library caller makes it: no callbacks of ours in its config."""
    ctx = wire.context(max_retries=0, max_concurrency=1, **settings)
    graph = (graph or build_reflective_graph()).compile(
        checkpointer=InMemorySaver(), store=wire.store
    )
    out = graph.invoke(
        {"query": "Who was Ada Lovelace?"},
        {"configurable": {"thread_id": "b"}},
        context=ctx,
        output_keys=STATE_KEYS,
    )
    return out, ctx


@pytest.mark.parametrize(
    ("build", "cap"), [(build_reflective_graph, 6), (build_single_path_graph, 5)]
)
def test_the_answer_keeps_its_call_when_new_work_stops(wire, build, cap):  # noqa: F811
    script = Script()
    wire(script)
    # goal, plan, then task 1: two executor calls (and the reflection); the last is the answer's
    out, ctx = _run(wire, build(), max_calls=cap)
    assert out["stopped"] == "max_calls"
    assert list(script.attempts) == [TASKS[0]]  # tasks 2 and 3 never started
    assert out["final_output"].startswith("FINAL")  # the aggregator's own answer
    assert len(wire.model.calls) == ctx.budget.calls == cap


def test_a_call_at_the_cap_is_refused_and_the_run_answers_without_a_model(wire):  # noqa: F811
    script = Script()
    wire(script)
    out, ctx = _run(wire, max_calls=5)  # the reflection on task 1 takes the answer's call
    assert len(wire.model.calls) == ctx.budget.calls == 5  # the aggregator's call refused
    assert out["stopped"] == "max_calls"
    assert out["final_output"].startswith(f"attempt 1 for {TASKS[0]}")  # task 1's result
    assert "Sources:" in out["final_output"]
    assert out["messages"][-1].text == out["final_output"]  # the chat's answer too


def test_a_cap_reached_inside_an_attempt_ends_its_tool_steps(wire):  # noqa: F811
    script = Script(searches=3)
    wire(script)
    out, ctx = _run(wire, max_calls=4)  # goal, plan, the executor's first call; one left
    prompts = [c for c in wire.model.calls if c["tools"]]
    assert len(prompts) == 1  # no second tool step: StopAtBudget ended the agent
    assert not script.attempts  # and the attempt answered from what its search found
    assert len(wire.model.calls) == 4 and out["stopped"] == "max_calls"
    # its reflection refused: the attempt stands unjudged, its result kept and answered from
    assert out["results"][0] and out["task_reports"][0]["verdict"] == "unjudged"
    assert out["final_output"].startswith(out["results"][0][:20])


def test_parallel_tasks_never_pass_the_cap_together(wire):  # noqa: F811
    wire(Script(searches=2))
    ctx = wire.context(max_retries=0, max_concurrency=3, max_calls=6)
    graph = build_reflective_graph().compile(checkpointer=InMemorySaver(), store=wire.store)
    out = graph.invoke(
        {"query": "Who was Ada Lovelace?"},
        {"configurable": {"thread_id": "p"}},
        context=ctx,
        output_keys=STATE_KEYS,
    )
    assert len(wire.model.calls) == ctx.budget.calls == 6
    assert out["stopped"] == "max_calls"  # no task finished: nothing to answer from


def test_a_time_cap_refuses_the_first_call(wire):  # noqa: F811
    wire(Script())
    out, _ = _run(wire, max_seconds=0.001)
    assert out["stopped"] == "max_seconds" and not wire.model.calls
    assert out["final_output"] == "" and not any(out.get("results") or [])


def test_a_context_used_for_two_runs_gives_each_its_caps(wire):  # noqa: F811
    wire(Script())
    ctx = wire.context(max_retries=0, max_concurrency=1, max_calls=20)
    graph = build_reflective_graph().compile(checkpointer=InMemorySaver(), store=wire.store)
    for thread in ("one", "two"):
        out = graph.invoke(
            {"query": "Who was Ada Lovelace?"},
            {"configurable": {"thread_id": thread}},
            context=ctx,
            output_keys=STATE_KEYS,
        )
        assert out["stopped"] is None and all(out["results"])
    assert len(wire.model.calls) > 20  # both runs whole, more than one cap's worth


def test_the_cli_marks_the_answer_partial_and_resume_finishes(wire, capsys, tmp_path):  # noqa: F811
    script = Script()
    wire(script)
    home = ["--home", str(tmp_path)]
    run = ["run", "Who was Ada Lovelace?", "--no-browser", "--max-retries", "0", "--json", *STEPS]
    code = main.main([*home, *run, "--max-calls", "5"], models=wire.models, tools=wire.tools)
    out = json.loads(capsys.readouterr().out)
    assert code == EXIT_PARTIAL == 6
    assert out["stopped"] == "max_calls" and out["partial"] is True
    assert out["llm_calls"] == 5 and out["final_output"].startswith("attempt 1")

    resume = ["run", "--resume", out["thread_id"], "--json", "--max-calls", "100"]
    code = main.main([*home, *resume], models=wire.models, tools=wire.tools)
    done = json.loads(capsys.readouterr().out)
    assert code == 0 and done["stopped"] is None and done["partial"] is False
    assert all(done["results"]) and len(done["results"]) == 3
    assert done["final_output"].startswith("FINAL")
    assert sorted(script.attempts) == sorted(TASKS)  # each task ran once across both
    assert set(script.attempts.values()) == {1}


def test_a_run_stopped_before_its_plan_resumes_to_plan_it(wire, capsys, tmp_path):  # noqa: F811
    script = Script()
    wire(script)
    home = ["--home", str(tmp_path)]
    run = ["run", "Who was Ada Lovelace?", "--no-browser", "--max-retries", "0", "--json", *STEPS]
    main.main([*home, *run, "--max-calls", "1"], models=wire.models, tools=wire.tools)
    out = json.loads(capsys.readouterr().out)
    assert out["stopped"] == "max_calls" and out["llm_calls"] == 1 and not out["tasks"]

    resume = ["run", "--resume", out["thread_id"], "--json", "--max-calls", "100"]
    code = main.main([*home, *resume], models=wire.models, tools=wire.tools)
    done = json.loads(capsys.readouterr().out)
    assert code == 0 and len(done["results"]) == 3 and done["final_output"].startswith("FINAL")


def test_caps_must_be_positive(capsys, tmp_path):
    code = main.main(["--home", str(tmp_path), "run", "hello", "--max-tokens", "0"])
    assert code == 2 and "--max-tokens must be positive" in capsys.readouterr().err


def test_a_retried_goal_setting_is_the_same_run_for_the_caps(wire):  # noqa: F811
    class Flaky(Exception):  # a provider's transient error: LangGraph retries the node
        pass

    script, failed = Script(), []

    def flaky_once(prompt, title, tools, messages):
        if title == "GoalSetting" and not failed:
            failed.append(True)
            raise Flaky("503")
        return script(prompt, title, tools, messages)

    wire(flaky_once)
    out, ctx = _run(wire, max_calls=1)
    assert len(wire.model.calls) == 1  # the failed call counted; the retry's call refused
    assert out["stopped"] == "max_calls" and ctx.budget.calls == 1
