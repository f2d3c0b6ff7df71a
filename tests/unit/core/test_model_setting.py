"""One `model` setting for every role, a role's own field over it, and a chat model object taken
as it is: in the graphs, in Studio's settings, in saved runs and on the command line."""

from __future__ import annotations

import json

import pytest

import main
from cli.commands import build_parser
from cli.run import _context_from_args
from core.context import Context, settings_of
from core.models import Models
from core.role_models import ROLES
from core.web_context import WebAgentContext
from graphs import build_reflective_graph, reflective_graph, web_graph
from tests.unit.fakes import ScriptedChatModel
from tests.unit.research_script import DEFAULT_TOOL_STEPS, QUESTION, Script, run


def test_model_names_every_role_and_a_role_field_overrides_it():
    assert [Context().model_for(r) for r in ROLES] == ["local"] * 4
    ctx = Context(model="openai:gpt-4o-mini", executor_model="local:smollm2-135m")
    assert [ctx.spec(r) for r in ROLES] == [
        "openai:gpt-4o-mini",
        "local:smollm2-135m",
        "openai:gpt-4o-mini",
        "openai:gpt-4o-mini",
    ]
    assert Context(model="openai:x", planner_model="").spec("planner") == "openai:x"
    web = WebAgentContext(model="openai:x", reflector_model="openai:y")
    assert (web.spec("executor"), web.spec("reflector")) == ("openai:x", "openai:y")


def test_a_chat_model_object_is_used_as_given_without_models():
    chat = ScriptedChatModel(responder=lambda *a: "hi", calls=[])
    ctx = Context(model=chat, models=Models.fixed())  # Models.fixed(): no spec may be built
    assert all(ctx.chat(r) is chat for r in ROLES) and ctx.spec("planner") is None
    assert ctx.model_name("executor") == "ScriptedChatModel"
    # spec-based defaults: an object is any capable model (own tool calls, own verdicts)
    assert (ctx.tool_steps, ctx.verdicts, ctx.task_concurrency) == (DEFAULT_TOOL_STEPS, True, 4)
    mixed = Context(model="openai:x", reflector_model=chat, models=Models.fixed(chat))
    assert mixed.chat("reflector") is chat and mixed.spec("reflector") is None


def test_something_that_is_no_model_is_refused_when_the_context_is_made():
    with pytest.raises(TypeError, match="executor_model must be a model spec"):
        Context(executor_model=42)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="model is unset"):
        Context(model="")


def test_a_graph_runs_on_a_chat_model_object(wire):
    tools = wire.tools  # the fake corpus search
    chat = ScriptedChatModel(responder=Script(), calls=[])
    ctx = Context(
        model=chat,
        models=Models.fixed(),
        tools=tools,
        max_retries=0,
        max_tool_steps=DEFAULT_TOOL_STEPS,
        answer_first=False,
    )
    _, _, state = run(build_reflective_graph(), ctx, query=QUESTION)
    assert state["final_output"].startswith("FINAL")
    titles = {c["title"] for c in chat.calls}
    assert {"GoalSetting", "DecomposedTasks", "ReflectionOutput", "FinalAnswer"} <= titles


def test_studio_shows_model_settings_as_strings_only():
    for graph in (reflective_graph, web_graph):
        props = graph.get_context_jsonschema()["properties"]
        assert props["model"]["type"] == "string" and props["model"]["default"] == "local"
        assert props["executor_model"]["anyOf"] == [{"type": "string"}, {"type": "null"}]
        assert "models" not in props


def test_a_saved_run_records_strings_and_no_model_object():
    chat = ScriptedChatModel(responder=lambda *a: "hi", calls=[])
    saved = settings_of(Context(model=chat, executor_model="openai:x"))
    assert "model" not in saved and saved["executor_model"] == "openai:x"
    json.dumps(saved)  # a run file is JSON
    assert settings_of(Context(model="openai:y"))["model"] == "openai:y"


def _context(saved: dict, *flags: str) -> Context:
    args = build_parser(["run"]).parse_args(["run", "--resume", "t1", *flags])
    args.home, args.models, args.tools = "/tmp/h", Models.fixed(), None
    return _context_from_args(args, {"context": saved})


OLD_RUN = {  # a run saved with one field per role
    "planner_model": "openai:p",
    "executor_model": "openai:e",
    "reflector_model": "openai:r",
    "aggregator_model": "openai:a",
}


def test_resuming_a_run_saved_with_four_role_fields():
    assert [_context(OLD_RUN).spec(r) for r in ROLES] == [
        "openai:p",
        "openai:e",
        "openai:r",
        "openai:a",
    ]
    assert {_context(OLD_RUN, "--model", "openai:m").spec(r) for r in ROLES} == {"openai:m"}
    ctx = _context(OLD_RUN, "--model", "openai:m", "--executor-model", "openai:x")
    assert [ctx.spec(r) for r in ROLES] == ["openai:m", "openai:x", "openai:m", "openai:m"]
    new = {"model": "openai:n", **dict.fromkeys(OLD_RUN)}
    assert {_context(new).spec(r) for r in ROLES} == {"openai:n"}
    assert _context(new, "--reflector-model", "openai:z").spec("reflector") == "openai:z"


def test_the_cli_saves_model_and_unset_roles(wire, tmp_path):
    wire(Script([False] * 3))
    argv = ["--home", str(tmp_path), "run", "Who?", "--no-browser", "--model", "openai:m"]
    assert (
        main.main([*argv, "--planner-model", "openai:p"], models=wire.models, tools=wire.tools) == 0
    )
    (saved,) = (tmp_path / "runs").glob("*.json")
    context = json.loads(saved.read_text())["context"]
    assert context["model"] == "openai:m" and context["planner_model"] == "openai:p"
    assert context["executor_model"] is None
