"""Run budgets: the run's callback counts calls and tokens; at a cap no task, retry or executor
tool step starts, the answer is written from what is done and `stopped` names the cap; the CLI
marks it partial (exit 6) and `--resume` finishes the rest."""

from __future__ import annotations

import json
import logging

from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, LLMResult
from langgraph.checkpoint.memory import InMemorySaver

import main
from agents.research.budget import budget_stop
from cli.errors import EXIT_PARTIAL
from core.run_budget import RunBudget
from graphs import build_reflective_graph
from tests.unit.research_script import STEPS, TASKS, Script, wire  # noqa: F401  (fixture)


def _answer(tokens_in: int, tokens_out: int) -> LLMResult:
    usage = {"input_tokens": tokens_in, "output_tokens": tokens_out, "total_tokens": 0}
    message = AIMessage("x", usage_metadata=usage)
    return LLMResult(generations=[[ChatGeneration(message=message)]])


def test_the_callback_counts_calls_and_tokens():
    budget = RunBudget()
    callback = budget.callback()
    assert budget.callback() is callback  # one handler, so adding it twice counts once
    for _ in range(3):
        callback.on_chat_model_start({}, [[]])
        callback.on_llm_end(_answer(100, 20))
    assert (budget.calls, budget.tokens) == (3, 360)
    assert budget.over(max_calls=3, max_tokens=None, max_seconds=None) == "max_calls"
    assert budget.over(max_calls=4, max_tokens=360, max_seconds=None) == "max_tokens"
    assert budget.over(max_calls=4, max_tokens=361, max_seconds=None) is None
    budget.started -= 10
    assert budget.over(max_calls=None, max_tokens=None, max_seconds=5) == "max_seconds"


def _run(wire, **caps):  # noqa: F811
    ctx = wire.context(max_retries=0, max_concurrency=1, **caps)
    graph = build_reflective_graph().compile(checkpointer=InMemorySaver(), store=wire.store)
    config = {"configurable": {"thread_id": "b"}, "callbacks": [ctx.budget.callback()]}
    return graph.invoke({"query": "Who was Ada Lovelace?"}, config, context=ctx), ctx


def test_a_call_cap_stops_new_tasks_and_answers_from_what_is_done(wire):  # noqa: F811
    script = Script()
    wire(script)
    # goal, plan, then task 1: two executor calls and the reflection = 5
    out, ctx = _run(wire, max_calls=5)
    assert out["stopped"] == "max_calls"
    assert out["results"][0] is not None and len([r for r in out["results"] if r]) == 1
    assert list(script.attempts) == [TASKS[0]]  # tasks 2 and 3 never started
    assert out["final_output"].startswith("FINAL")  # the answer is still written
    assert ctx.budget.calls == 6  # the cap, and the answer's one call


def test_a_cap_reached_inside_an_attempt_ends_its_tool_steps(wire):  # noqa: F811
    script = Script(searches=3)
    wire(script)
    _, ctx = _run(wire, max_calls=3)  # goal, plan and the executor's first call
    prompts = [c for c in wire.model.calls if c["tools"]]
    assert len(prompts) == 1  # no second tool step: StopAtBudget ended the agent
    assert not script.attempts  # and the attempt answered from what its search found


def test_a_time_cap_needs_no_callback(wire):  # noqa: F811
    wire(Script())
    ctx = wire.context(max_seconds=0.001)
    graph = build_reflective_graph().compile(checkpointer=InMemorySaver(), store=wire.store)
    out = graph.invoke({"query": "Who?"}, {"configurable": {"thread_id": "t"}}, context=ctx)
    assert out["stopped"] == "max_seconds" and not any(out.get("results") or [])


def test_uncounted_caps_are_reported_once(wire, caplog):  # noqa: F811
    wire(Script())
    ctx = wire.context(max_calls=2)
    with caplog.at_level(logging.WARNING):
        assert budget_stop(ctx) is None and budget_stop(ctx) is None
    assert [r.message for r in caplog.records].count(caplog.records[0].message) == 1
    assert "not counted" in caplog.records[0].message


def test_the_cli_marks_the_answer_partial_and_resume_finishes(wire, capsys, tmp_path):  # noqa: F811
    script = Script()
    wire(script)
    home = ["--home", str(tmp_path)]
    run = ["run", "Who was Ada Lovelace?", "--no-browser", "--max-retries", "0", "--json", *STEPS]
    code = main.main([*home, *run, "--max-calls", "5"], models=wire.models, tools=wire.tools)
    out = json.loads(capsys.readouterr().out)
    assert code == EXIT_PARTIAL == 6
    assert out["stopped"] == "max_calls" and out["partial"] is True
    assert out["final_output"].startswith("FINAL")

    resume = ["run", "--resume", out["thread_id"], "--json", "--max-calls", "100"]
    code = main.main([*home, *resume], models=wire.models, tools=wire.tools)
    done = json.loads(capsys.readouterr().out)
    assert code == 0 and done["stopped"] is None and done["partial"] is False
    assert all(done["results"]) and len(done["results"]) == 3
    assert sorted(script.attempts) == sorted(TASKS)  # each task ran once across both
    assert set(script.attempts.values()) == {1}


def test_caps_must_be_positive(capsys, tmp_path):
    code = main.main(["--home", str(tmp_path), "run", "hello", "--max-tokens", "0"])
    assert code == 2 and "--max-tokens must be positive" in capsys.readouterr().err
