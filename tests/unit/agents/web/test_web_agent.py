"""The web agent without a browser: decision, validation, fallback, prompt, memory, the loop.

The graph runs on a scripted model and a scripted environment attached to the run's context
through agents.web.session (same interface as BrowserEnv: observe, step, trajectory).
"""

from __future__ import annotations

import asyncio
import json
import re

import pytest
from jsonschema import Draft202012Validator
from llama_cpp.llama_grammar import json_schema_to_gbnf

from agents.web.action_schema import (
    EDITABLE,
    FALLBACK_ACTION,
    action_schema,
    action_types,
    compose_action,
    page_ids,
)
from agents.web.decide import build_messages, decide_action
from agents.web.feedback import spent_actions, unchanged_by
from agents.web.memory import format_past_trajectories, similar_trajectories
from browser.actions import ActionParseError, ActionType, parse_action
from browser.trajectory import TrajectoryStep
from core.local_schema import bounded_schema
from memory.agent_memory import AgentMemory
from memory.trajectories import trajectory_from_web_steps
from tests.conftest import ROOT
from tests.unit.fakes import HashEmbeddings, ScriptedChatModel
from tests.unit.web_fakes import answer, recorded_steps

PAGE = (
    "Tab 0 (current): Shop\nURL: http://127.0.0.1/\n"
    "[1] RootWebArea 'Shop'\n\t[7] button 'Buy'\n\t[9] textbox 'Name'"
)


# -- composing and validating -------------------------------------------------------------------
@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        (answer("click", "7"), "click [7]"),
        (answer("type", "9", "Ada"), "type [9] [Ada]"),
        (answer("press", text="Enter"), "press [Enter]"),
        (answer("scroll"), "scroll [down]"),
        (answer("stop", text="42"), "stop [42]"),
        (answer("go_back", "7", "x"), "go_back"),
        (answer("goto", text="http://127.0.0.1/a"), "goto [http://127.0.0.1/a]"),
    ],
)
def test_compose_gives_actions_the_parser_accepts(reply, expected):
    action = compose_action(reply)
    assert action == expected
    parse_action(action)


def test_compose_keeps_bad_answers_bad_so_the_env_rejects_them():
    with pytest.raises(ActionParseError):
        parse_action(compose_action(answer("click", "")))
    with pytest.raises(ActionParseError):
        parse_action(compose_action(answer("jump", "7")))


def test_schema_limits_element_ids_to_the_page():
    ids = page_ids(PAGE)
    assert ids == ["7", "9"]  # not the root: acting on the document does nothing
    schema = action_schema(ids)
    assert sorted(action_types(schema)) == sorted(t.value for t in ActionType)
    for branch in schema["oneOf"]:
        if "element_id" in branch["properties"]:
            assert branch["properties"]["element_id"]["enum"] == ["7", "9"]


@pytest.mark.parametrize(
    ("reply", "fits"),
    [
        (answer("type", "9", "Ada"), True),
        (answer("type", "", "Ada"), False),  # Qwen2.5-1.5B's answer on every MiniWoB++ page
        ({"action_type": "type", "text": "Ada"}, False),
        ({"action_type": "click", "element_id": "7"}, True),
        ({"action_type": "click", "element_id": "1"}, False),  # the document, not a target
        ({"action_type": "press", "text": "Enter"}, True),
        ({"action_type": "press", "element_id": "7", "text": "Enter"}, False),
        ({"action_type": "go_back"}, True),
    ],
)
def test_schema_makes_an_element_action_name_a_page_element(reply, fits):
    schema = action_schema(page_ids(PAGE))
    errors = list(Draft202012Validator(schema).iter_errors(reply))
    assert (not errors) is fits
    # and the embedded model's grammar is built from the same schema
    grammar = json_schema_to_gbnf(json.dumps(bounded_schema(schema)))
    assert '"\\"7\\"" | "\\"9\\""' in grammar and "root ::= alternative-0 |" in grammar


def test_schema_of_a_page_without_targets_offers_no_element_action():
    kinds = action_types(action_schema([]))
    assert "click" not in kinds and "type" not in kinds and "stop" in kinds


def test_schema_types_into_editable_elements_only():
    page = PAGE + "\n\t[11] StaticText 'Name'"
    schema = action_schema(page_ids(page), editable=page_ids(page, EDITABLE))
    assert not list(Draft202012Validator(schema).iter_errors(answer("type", "9", "Ada")))
    assert list(Draft202012Validator(schema).iter_errors(answer("type", "11", "Ada")))  # a label
    assert list(Draft202012Validator(schema).iter_errors(answer("type", "7", "Ada")))  # a button
    click = {"action_type": "click", "element_id": "11"}
    assert not list(Draft202012Validator(schema).iter_errors(click))  # labels may be clicked


def _step(action, observation=PAGE, valid=True):
    return TrajectoryStep(1, observation, "u", action, action if valid else None, valid)


def test_an_action_that_left_the_page_as_it_was_is_not_offered_again():
    typed = PAGE.replace("textbox 'Name'", "textbox 'Name'\n\t\t[12] StaticText 'Ada'")
    spent = [_step("type [9] [Ada] [1]", observation=typed)]
    model = _model([answer("click", "7")])
    asyncio.run(decide_action(model, "Enter Ada and press Buy", typed, spent, {}))
    schema = model.calls[0]["schema"]
    offers = {b["properties"]["action_type"]["enum"][0]: b for b in schema["oneOf"][:3]}
    assert "type" not in offers  # the only editable element was the one just typed into
    assert offers["click"]["properties"]["element_id"]["enum"] == ["7", "9", "12"]
    assert "left the page exactly as it was" in model.calls[0]["prompt"]
    # a page the action did change: everything is offered and nothing is said
    model = _model([answer("click", "7")])
    asyncio.run(
        decide_action(model, "Enter Ada and press Buy", typed, [_step("type [9] [Ada]")], {})
    )
    assert "type" in action_types(model.calls[0]["schema"])
    assert "left the page" not in model.calls[0]["prompt"]


def test_every_action_that_left_the_page_as_it_is_is_spent_not_only_the_last():
    checked = PAGE.replace("button 'Buy'", "button 'Buy' focused: True")
    tried = [
        _step("click [7]", observation=PAGE),  # changed the page (focus): not spent
        _step("click [9]", observation=checked),  # these two changed nothing
        _step("hover [7]", observation=checked),
    ]
    spent = spent_actions(tried, checked)
    assert sorted(a.canonical for a in spent) == ["click [9]", "hover [7]"]
    schema = action_schema(page_ids(checked), spent)
    offered = {b["properties"]["action_type"]["enum"][0]: b for b in schema["oneOf"][:3]}
    assert offered["click"]["properties"]["element_id"]["enum"] == ["7"]  # 9 is spent
    assert offered["hover"]["properties"]["element_id"]["enum"] == ["9"]
    assert spent_actions([*tried, _step("noop", valid=False)], checked) == []  # refused last


def test_a_long_page_cut_in_the_trajectory_still_counts_as_unchanged():
    long_page = PAGE + "".join(f"\n\t[{i}] link 'item {i}'" for i in range(100, 400))
    cut = long_page[:2000] + "\n…"
    assert unchanged_by([_step("click [7]", observation=cut)], long_page) is not None
    assert unchanged_by([_step("click [7]", observation=cut)], PAGE) is None
    assert unchanged_by([_step("click [3]", valid=False)], PAGE) is None  # refused: feedback


def _model(replies):
    replies = list(replies)
    return ScriptedChatModel(responder=lambda *a: replies.pop(0), calls=[])


def test_decide_returns_a_valid_action_and_counts_tokens():
    decision = asyncio.run(decide_action(_model([answer("click", "7")]), "Buy it", PAGE, [], {}))
    assert (decision.action, decision.valid, decision.reason) == ("click [7]", True, None)
    assert decision.tokens > 0


def test_decide_invalid_composition_is_flagged_with_the_reason():
    decision = asyncio.run(decide_action(_model([answer("type", "", "Ada")]), "t", PAGE, [], {}))
    assert not decision.valid and "id" in decision.reason


def test_decide_falls_back_to_noop_after_bounded_malformed_answers():
    model = _model(["not json", "still not json", answer("click", "7")])
    decision = asyncio.run(decide_action(model, "t", PAGE, [], {}, attempts=2))
    assert decision.action == FALLBACK_ACTION and decision.valid
    assert len(model.calls) == 2  # bounded: the third reply is never asked for


def test_prompt_carries_memory_history_feedback_and_page():
    step = TrajectoryStep(1, "obs", "u", "click [3]", None, False, reason="no element [3]")
    system, human = build_messages(
        "Buy the book",
        PAGE,
        [step],
        {"reflections": "<ref_0>R</ref_0>", "workflows": "## buy\nW", "trajectories": "<run_0>P"},
        feedback="no element [3]",
    )
    assert "click [id]" in system.text and "stop [answer]" in system.text
    body = human.text
    for tag in ("task", "past_reflections", "workflows", "past_trajectories", "page", "feedback"):
        assert f"<{tag}>" in body and f"</{tag}>" in body
    assert "&lt;ref_0&gt;R&lt;/ref_0&gt;" in body and "## buy" in body and "&lt;run_0&gt;P" in body
    assert "[invalid: no element [3]]" in body and "[7] button 'Buy'" in body
    assert body.index("<task>") < body.index("<page>")


def test_prompt_without_memory_shows_placeholders():
    _, human = build_messages("t", PAGE, [], {})
    assert "<workflows>\n(none)\n</workflows>" in human.text
    assert "first action" in human.text


# -- procedural memory --------------------------------------------------------------------------
def test_similar_trajectories_nearest_first_with_outcomes():
    from langgraph.store.memory import InMemoryStore

    memory = AgentMemory(InMemoryStore())
    for task, action, website, success in [
        ("book a flight to Paris", "click [1]", "air", True),
        ("cancel my hotel room", "click [2]", "air", False),
        ("book a flight to Rome", "click [3]", "other", True),
    ]:
        memory.record_trajectory(
            trajectory_from_web_steps(
                task,
                recorded_steps(action),
                website=website,
                success=success,
                judged_by="evaluator",
            )
        )
    recorded = memory.trajectories("air", successful_only=False)
    for emb in (None, HashEmbeddings()):
        runs = similar_trajectories(recorded, "book a flight to Oslo", k=2, embeddings=emb)
        assert [r.task for r in runs] == ["book a flight to Paris", "cancel my hotel room"]
    text = format_past_trajectories(runs)
    assert "<outcome>success</outcome>" in text and "<outcome>failure</outcome>" in text
    assert "click [1]  # button 'X'" in text
    assert similar_trajectories(recorded, "x", k=0) == []


def test_the_web_context_holds_only_what_the_web_agent_reads():
    """Studio shows these settings for the web graph: each one must change something."""
    from dataclasses import fields

    from core.web_context import WebAgentContext

    root = ROOT
    sources = [*(root / "agents" / "web").glob("*.py"), root / "agents" / "resources.py"]
    code = "\n".join(p.read_text() for p in sources)
    # a role's model is read through ctx.chat(role), which falls back to `model`
    roles = set(re.findall(r'ctx\.chat\("(\w+)"\)', code))
    read = {"model"} | {f"{role}_model" for role in roles} if roles else set()
    unread = [
        f.name
        for f in fields(WebAgentContext)
        if f.name not in read and not re.search(rf"(ctx|context)\.{f.name}\b", code)
    ]
    # nodes reach memory only through runtime.store: `home` says where a run's store is opened,
    # which the web graph's runner does
    runner = (root / "evals" / "miniwob" / "graph.py").read_text()
    assert unread == ["home"] and re.search(r"context\.home\b", runner), unread
