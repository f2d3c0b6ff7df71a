"""Workflows as callable actions: parameterized induction, argument enums, the decision grammar,
expansion with target checks and hand-back, and the graph calling a workflow."""

from __future__ import annotations

import asyncio
import uuid

import pytest

from agents.web import session as web_session
from agents.web.action_schema import action_schema, page_ids
from agents.web.decide import decide_action
from agents.web.workflow_actions import as_action, callable_workflows, parse_call, perform
from agents.web.workflow_args import Param, aligned, candidates
from agents.web.workflow_choice import STEP_BY_STEP, call_options, with_calls
from browser.macro import Target
from core.web_context import WebAgentContext
from graphs.web import build_web_graph
from memory.agent_memory import AgentMemory
from memory.stores.project_store import open_project_store
from memory.trajectories import Step, Trajectory
from memory.workflows.format import format_workflow, parse_workflows
from memory.workflows.params import parameterize
from memory.workflows.types import Workflow
from tests.unit.fakes import ScriptedChatModel
from tests.unit.web_fakes import PLAN, LoginEnv, observation

TASK = 'Enter the username "{u}" and the password "{p}" into the text fields and press login.'


def login_run(user: str, password: str) -> Trajectory:
    steps = [
        f"type [3] [{user}] [0]  # textbox ''",
        f"type [4] [{password}] [0]  # textbox ''",
        "click [25]  # button 'Login'",
    ]
    return Trajectory(
        TASK.format(u=user, p=password),
        "miniwob-login-user",
        [Step("obs", a) for a in steps],
        success=True,
    )


LOGIN = parameterize([login_run("karrie", "AU"), login_run("ada", "x9")], name="login_user")


# -- induction with placeholders ------------------------------------------------------------
def test_values_that_change_between_runs_become_placeholders():
    assert LOGIN.steps == [
        "type [3] [{username}] [0]  # textbox ''",
        "type [4] [{password}] [0]  # textbox ''",
        "click [25]  # button 'Login'",
    ]
    assert LOGIN.description.startswith('Enter the username "{username}" and the password "{p')
    assert LOGIN.name == "login_user" and LOGIN.provenance.website == "miniwob-login-user"
    # the text format round-trips, so it can be saved and edited like any workflow
    assert parse_workflows(format_workflow(LOGIN)).workflows[0].steps == LOGIN.steps


def test_a_single_run_parameterizes_what_the_task_states():
    run = Trajectory(
        "Select HF2 and click Submit.",
        "cb",
        [Step("o", "click [57]  # checkbox 'HF2'"), Step("o", "click [21]  # button 'Submit'")],
        success=True,
    )
    workflow = parameterize([run])
    assert workflow.steps == [
        "click [57]  # checkbox '{checkbox}'",
        "click [21]  # button '{button}'",
    ]
    with pytest.raises(ValueError, match="sequence of actions"):
        parameterize([run, login_run("a", "b")])


# -- callable actions -------------------------------------------------------------------------
def test_a_workflow_becomes_an_action_with_its_placeholders_as_parameters():
    action = as_action(LOGIN)
    assert action is not None and action.signature == "login_user(username, password)"
    assert [p.role for p in action.params] == [None, None]
    bound = action.bind({"username": "bo", "password": "pw"})
    assert [s.action for s in bound][:2] == ["type [3] [bo] [0]", "type [4] [pw] [0]"]
    assert bound[2].target == Target("button", "Login")


def test_which_workflows_are_callable():
    mind2web = Workflow(
        "enter_origin", "d", ["[textbox]  Origin -> TYPE: {city}", "[link]  {best-option} -> CLICK"]
    )
    no_target = Workflow("raw", "d", ["click [12]", "stop [done]"])
    gym = Workflow("gym", "d", ["click('12')"])
    actions = callable_workflows([mind2web, no_target, gym, LOGIN])
    assert [a.name for a in actions] == ["enter_origin", "login_user"]
    assert [(p.name, p.role) for p in actions[0].params] == [
        ("city", None),
        ("best-option", "link"),
    ]


# -- arguments come from closed lists ---------------------------------------------------------
PAGE = observation(
    "[2] RootWebArea 'Form'\n\t[53] checkbox 'AU'\n\t[57] checkbox 'HF2'\n\t[21] button 'Submit'"
)


def test_element_placeholders_take_names_of_such_elements_task_mentions_first():
    assert candidates(Param("checkbox", "checkbox"), "Select HF2 and click", PAGE.text) == [
        "HF2",
        "AU",
    ]
    assert candidates(Param("link", "link"), "anything", PAGE.text) == []


def test_value_placeholders_rank_the_value_stated_after_their_name_first():
    task = TASK.format(u="karrie", p="AU")
    assert candidates(Param("username"), task, "")[0] == "karrie"
    assert candidates(Param("password"), task, "")[0] == "AU"
    assert len(candidates(Param("x"), "a b c d e f g h i j k l m n o p q r s t u v", "")) == 20


def test_a_task_that_reads_as_the_workflows_template_gives_its_values_only():
    task = TASK.format(u="karrie", p="the password")
    assert aligned(LOGIN.description, task) == {"username": "karrie", "password": "the password"}
    assert candidates(Param("password"), task, "", template=LOGIN.description) == ["the password"]
    assert aligned("A successful run of: " + LOGIN.description, task)["username"] == "karrie"
    other = 'Enter "bo" into the text field and press Submit.'
    enter = 'Enter "{text}" into the text field and press Submit.'
    assert (
        aligned(
            enter, 'Enter "a" into the box, then enter "b" into the text field and press Submit.'
        )
        == {}
    )
    assert aligned("Type {first} {last}", "Type Mary Ann Smith") == {}  # ambiguous
    assert aligned('Enter "{text}" now', 'Enter " " now') == {}  # no value
    assert aligned("Search for {query}", 'Use the box to search for "cats", then stop.') == {}
    assert aligned(LOGIN.description, other) == {}
    assert len(candidates(Param("username"), other, "", template=LOGIN.description)) > 1


def test_the_grammar_offers_each_callable_workflow_with_enum_arguments():
    login = LoginEnv()
    obs = observation(login.tree()).text
    options = call_options([as_action(LOGIN)], TASK.format(u="bo", p="pw"), obs)
    schema = with_calls(action_schema(page_ids(obs)), options)
    call, *primitive = schema["oneOf"]
    assert call["properties"]["action_type"]["enum"] == ["login_user"]
    assert call["properties"]["args"]["properties"]["username"]["enum"][0] == "bo"
    assert primitive == action_schema(page_ids(obs))["oneOf"]  # spliced, not nested
    assert with_calls(action_schema(["3"]), {}) == action_schema(["3"])


def test_calls_are_parsed_never_evaluated():
    actions = [as_action(LOGIN)]
    call = parse_call("login_user(username='bo', password='pw')", actions)
    assert call is not None and call.args == {"username": "bo", "password": "pw"}
    assert parse_call("click [3]", actions) is None
    assert parse_call("__import__('os').system('x')", actions) is None
    with pytest.raises(ValueError, match="missing"):
        parse_call("login_user(username='bo')", actions)
    with pytest.raises(ValueError, match="name='text'"):
        parse_call("login_user(username=open('f'), password='p')", actions)


def _model(replies):
    replies = list(replies)
    return ScriptedChatModel(responder=lambda *a: replies.pop(0), calls=[])


def test_decide_can_choose_a_workflow_call_and_its_arguments_are_checked():
    obs, task = observation(LoginEnv().tree()).text, TASK.format(u="bo", p="pw")
    pick = {"action_type": "login_user", "args": {"username": "bo", "password": "pw"}}
    decision = asyncio.run(
        decide_action(_model([pick]), task, obs, [], {}, actions=[as_action(LOGIN)])
    )
    assert (decision.action, decision.valid) == ("login_user(username='bo', password='pw')", True)
    wrong = {"action_type": "login_user", "args": {"username": "mallory", "password": "pw"}}
    decision = asyncio.run(
        decide_action(_model([wrong]), task, obs, [], {}, actions=[as_action(LOGIN)])
    )
    assert not decision.valid and "username" in decision.reason


def test_a_workflow_called_in_this_episode_is_not_offered_again():
    from browser.trajectory import TrajectoryStep

    obs, task = observation(LoginEnv().tree()).text, TASK.format(u="bo", p="pw")
    titles: list[str] = []

    def reply(prompt, title, tools, messages):
        titles.append(title)
        return {"action_type": "click", "element_id": "25", "text": ""}

    call = "login_user(username='bo', password='pw')"
    step = TrajectoryStep(0, "", "", "", "type [3] [bo] [0]", True, call=call)
    done = [step]
    model = ScriptedChatModel(responder=reply, calls=[])
    decision = asyncio.run(decide_action(model, task, obs, done, {}, actions=[as_action(LOGIN)]))
    assert decision.action == "click [25]" and titles == ["WebAction"]


def test_declining_every_workflow_leads_to_an_ordinary_step():
    obs, task = observation(LoginEnv().tree()).text, TASK.format(u="bo", p="pw")
    asked: list[tuple[str, str]] = []

    def reply(prompt, title, tools, messages):
        asked.append((title, prompt))
        if title == "WebChoice":
            return {"action_type": STEP_BY_STEP}
        return {"action_type": "click", "element_id": "25", "text": ""}

    model = ScriptedChatModel(responder=reply, calls=[])
    decision = asyncio.run(decide_action(model, task, obs, [], {}, actions=[as_action(LOGIN)]))
    assert decision.action == "click [25]" and decision.valid
    assert [t for t, _ in asked] == ["WebChoice", "WebAction"]
    assert "step_by_step" in asked[0][1] and "login_user(username, password)" in asked[0][1]
    assert "step_by_step" not in asked[1][1]


# -- expansion ----------------------------------------------------------------------------------
def test_a_call_expands_into_its_steps_and_records_both_levels():
    env = LoginEnv("bo", "pw")
    asyncio.run(env.observe())
    text = "login_user(username='bo', password='pw')"
    result = asyncio.run(perform(env, text, [as_action(LOGIN)]))
    assert result is not None and result.completed and env.logged_in is True
    assert [s.action for s in env.trajectory] == [
        "type [3] [bo] [0]",
        "type [4] [pw] [0]",
        "click [25]",
    ]
    assert {s.call for s in env.trajectory} == {text}
    assert asyncio.run(perform(env, "noop", [as_action(LOGIN)])) is None  # a plain step
    assert env.trajectory[-1].call is None


def test_a_missing_target_hands_control_back_before_acting():
    signin = Workflow(
        "sign_in", "d", ["type [3] [{username}] [0]  # textbox ''", "click [9]  # button 'Sign in'"]
    )
    env = LoginEnv("bo", "pw")
    asyncio.run(env.observe())
    result = asyncio.run(perform(env, "sign_in(username='bo')", callable_workflows([signin])))
    assert result is not None and not result.completed and result.executed == 1
    last = env.trajectory[-1]
    assert not last.valid and "button 'Sign in'" in last.reason and last.action is None
    assert env.logged_in is None  # nothing was clicked


# -- the graph calls a workflow -------------------------------------------------------------------
def test_the_graph_calls_the_workflow_and_the_task_ends(isolated_home):
    from core.models import Models

    schemas = []

    def responder(prompt, title, tools, messages):
        if title == PLAN:
            return {"steps": ["Sign in as bo"]}
        schemas.append("login_user(username, password)" in prompt)
        return {"action_type": "login_user", "args": {"username": "bo", "password": "pw"}}

    model = ScriptedChatModel(responder=responder, calls=[])
    env, run_id = LoginEnv("bo", "pw"), uuid.uuid4().hex

    async def evaluate():
        return env.logged_in is not None, 1.0 if env.logged_in else 0.0

    context = WebAgentContext(
        online_induction="off",
        workflow_actions=True,
        embedding_model="hashing",
        reflections_k=0,
        models=Models.fixed(model),
    )
    web_session.attach(context, env, evaluate)
    state = {"task": TASK.format(u="bo", p="pw"), "run_id": run_id, "website": "login"}
    with open_project_store(isolated_home, "hashing") as store:  # the workflows' memory
        AgentMemory(store).put_workflows("login", [LOGIN])
        graph = build_web_graph().compile(store=store)
        out = asyncio.run(graph.ainvoke(state, context=context))
    assert schemas == [True]  # one decision: the workflow action was offered and chosen
    assert out["reward"] == 1.0 and out["done_reason"] == "task_done"
    assert [s["call"] for s in out["steps"]] == ["login_user(username='bo', password='pw')"] * 3


def test_online_rule_induction_keeps_one_callable_workflow_per_template(tmp_path):
    from memory.workflows.online import rule_workflows

    first, second = rule_workflows([login_run("karrie", "AU"), login_run("ada", "x9")])
    assert first.name == second.name  # the values are not in the name: upsert updates one
    assert first.steps[0] == "type [3] [{username}] [0] # textbox ''"
    assert "{password}" in first.description and "karrie" not in first.description
    action = as_action(first)
    assert action is not None and [p.name for p in action.params] == ["username", "password"]
    gym = Trajectory("Open orders", "shop", [Step("o", "click('227')")], success=True)
    assert rule_workflows([gym])[0].steps == ["click('227')"]  # not ours to rewrite: as is
