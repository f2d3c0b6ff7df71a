"""The web agent's plan: written once on the first page, shown to every decision with the step
that is next, counted from the actions that changed the page; bad or no plans act without one."""

from __future__ import annotations

import asyncio
import uuid

from agents.web import session as web_session
from agents.web.plan import clean_steps, plan_turn, steps_done
from browser.actions import Action, ActionType
from browser.trajectory import TrajectoryStep
from core import local_seed
from core.state import WebAgentState
from core.web_context import WebAgentContext
from graphs.web import build_web_graph, route_after_observe
from tests.unit.fakes import ScriptedChatModel
from tests.unit.web_fakes import PLAN, ScriptedEnv, ScriptedModels, answer


class FormEnv(ScriptedEnv):
    """A text field that shows what was typed into it, and a Submit button that ends the task."""

    def __init__(self) -> None:
        super().__init__()
        self.value = ""
        self.submitted: str | None = None

    def tree(self) -> str:
        typed = f"\n\t\t[75] StaticText {self.value!r}" if self.value else ""
        return f"[1] RootWebArea 'Form'\n\t[2] textbox ''{typed}\n\t[19] button 'Submit'"

    def apply(self, action: Action) -> str | None:
        if action.type is ActionType.TYPE:
            self.value = action.text or ""
        elif action.canonical == "click [19]":
            self.submitted = self.value
        return None


def _step(i: int, before: str, action: str | None, valid: bool = True, call=None):
    return TrajectoryStep(i, before, "u", action or "", action, valid, call=call)


def test_a_step_is_done_by_each_action_that_changed_the_page():
    history = [
        _step(1, "empty", "type [2] [Ada]"),  # changed the page: step 1 done
        _step(2, "typed", "type [2] [Ada]"),  # the page stayed as it was: nothing done
        _step(3, "typed", None, valid=False),  # refused: nothing done
    ]
    assert steps_done(history, "typed") == 1
    assert steps_done(history + [_step(4, "typed", "click [19]")], "sent") == 2
    assert steps_done([], "empty") == 0


def test_a_workflow_calls_steps_count_each_as_the_plan_follows_them():
    call = "login(user='ada')"
    history = [
        _step(1, "a", "type [3] [ada]", call=call),
        _step(2, "b", "type [4] [pw]", call=call),
        _step(3, "c", "click [25]", call=call),
    ]
    assert steps_done(history, "d") == 3


def test_typing_on_a_page_cut_in_the_trajectory_counts():
    cut = "[1] RootWebArea 'Long'\n…"  # the change may lie past the cut
    assert steps_done([_step(1, cut, "type [9] [Ada]")], "[1] RootWebArea 'Long'\nmore") == 1
    assert steps_done([_step(1, cut, "click [9]")], "[1] RootWebArea 'Long'\nmore") == 0


def test_the_closing_names_the_next_step_until_every_step_is_done():
    steps = ["Type 'Ada' into the field", "Click 'Submit'"]
    assert "step 1 of <plan> is next: Type 'Ada'" in plan_turn(steps, 0)
    assert "steps 1 to 1" in plan_turn(steps, 1) and "step 2 is next: Click" in plan_turn(steps, 1)
    assert "every step" in plan_turn(steps, 2) and "stop if" in plan_turn(steps, 5)
    assert plan_turn([], 0) == ""
    assert "&lt;b&gt;" in plan_turn(["Click <b>"], 0)  # a step is model text: escaped


def test_clean_steps_keeps_strings_once_on_one_line():
    raw = [" Type  'Ada'\ninto it ", "", 3, "Type 'Ada' into it", "Click"]
    assert clean_steps(raw) == ["Type 'Ada' into it", "Click"]
    assert clean_steps("Click") == [] and clean_steps(None) == []


def test_a_plan_that_copies_lines_of_the_page_is_no_plan():
    page = "Tab 0 (current): Form\nURL: http://127.0.0.1:5/f.html\n[1] RootWebArea 'Form'"
    copied = ["Tab 0 (current): Form", "URL: http://127.0.0.1:5/f.html", "Type 'Ada'"]
    assert clean_steps(copied, page) == []
    assert clean_steps(["RootWebArea 'Form'", "Click"], page) == []  # a line without its id
    assert clean_steps(["Form", "Click"], page) == []  # the page's title
    assert clean_steps(["Type {username} into 'Username'", "Click"], page) == []  # a placeholder
    assert clean_steps(["Type 'Ada' into the Form", "Click"], page) == [
        "Type 'Ada' into the Form",
        "Click",
    ]


def test_route_plans_first_and_once_more_after_a_decision_past_the_plan_acted():
    typed = _step(1, "empty", "type [2] [Ada]").to_dict()
    again = _step(2, "typed", "type [2] [Ada]").to_dict()
    one = {"task": "t", "plan": ["Type 'Ada'"], "plan_from": 0, "observation": "typed"}
    assert route_after_observe(WebAgentState(task="t")) == "plan"
    assert route_after_observe(WebAgentState(**one, plans=1)) == "decide"  # a step is left
    # the steps are done: first a decision with the task (it may stop), then a second plan
    assert route_after_observe(WebAgentState(**one, plans=1, steps=[typed])) == "decide"
    assert route_after_observe(WebAgentState(**one, plans=1, steps=[typed, again])) == "plan"
    assert route_after_observe(WebAgentState(**one, plans=2, steps=[typed, again])) == "decide"
    assert route_after_observe(WebAgentState(task="t", plan=[], plans=1)) == "decide"


def _run(responder, **ctx):
    models = ScriptedModels()
    models.model = ScriptedChatModel(responder=responder, calls=[])
    env = FormEnv()

    async def evaluate():
        return env.submitted is not None, 1.0 if env.submitted == "Ada" else 0.0

    context = WebAgentContext(online_induction="off", judge_runs=False, models=models, **ctx)
    web_session.attach(context, env, evaluate)
    state = {"task": 'Enter "Ada" and press Submit.', "run_id": uuid.uuid4().hex}
    out = asyncio.run(build_web_graph().compile().ainvoke(state, context=context))
    return out, models.model.calls


def _form_responder(plan):
    def responder(prompt, title, tools, messages):
        if title == PLAN:
            return plan
        if "step 2 is next" in prompt:
            return answer("click", "19")
        return answer("type", "2", "Ada")

    return responder


def test_the_plan_is_written_once_and_each_decision_is_told_the_next_step():
    steps = {"steps": ["Type 'Ada' into the text field", "Click the 'Submit' button"]}
    out, calls = _run(_form_responder(steps))
    assert out["reward"] == 1.0 and out["plan"] == steps["steps"]
    assert [s["action"] for s in out["steps"]] == ["type [2] [Ada] [1]", "click [19]"]
    titles = [c["title"] for c in calls]
    assert titles == [PLAN, "WebAction", "WebAction"]  # planned once, before the first action
    first, second = (c["prompt"] for c in calls[1:])
    # each decision does one step: it stands in <task>, the whole task is left out
    assert "<task>\nType 'Ada' into the text field\n</task>" in first
    assert "<task>\nClick the 'Submit' button\n</task>" in second
    assert "<plan>\n1. Type 'Ada' into the text field\n2. Click" in first
    assert 'Enter "Ada"' not in first and 'Enter "Ada"' not in second
    assert "step 1 of <plan> is next" in first and "step 2 is next: Click" in second
    # the previous actions are left out: the plan's count stands for them
    assert "1. type [2]" not in second and "left out: <plan> says" in second


def test_a_plan_asked_again_is_a_new_sample():
    rounds = []

    def responder(prompt, title, tools, messages):
        if title == PLAN:
            rounds.append(local_seed._ROUNDS.get())
            return {"steps": ["Tab 0 (current): Page"]} if len(rounds) == 1 else {"steps": ["Go"]}
        return answer("type", "2", "Ada")

    _run(responder)
    assert rounds[:2] == [(0,), (1,)]


def test_without_a_usable_plan_the_agent_acts_without_one():
    out, calls = _run(_form_responder({"steps": ["", "  "]}))  # nothing usable, twice
    assert out["plan"] == [] and [c["title"] for c in calls][:3] == [PLAN, PLAN, "WebAction"]
    assert "<plan>\n" not in calls[2]["prompt"] and "of <plan>" not in calls[2]["prompt"]
    assert out["steps"]  # it still acted


def test_planning_off_asks_for_no_plan():
    out, calls = _run(_form_responder({"steps": ["x"]}), plan_steps=False, max_steps=3)
    assert out["plan"] == [] and PLAN not in [c["title"] for c in calls]


def test_a_plan_that_runs_out_before_the_task_ends_is_written_once_more():
    plans = []

    def responder(prompt, title, tools, messages):
        if title == PLAN:
            plans.append(prompt)
            return {"steps": ["Type 'Ada'"] if len(plans) == 1 else ["Click 'Submit'"]}
        if "<task>\nClick 'Submit'\n</task>" in prompt:
            return answer("click", "19")
        return answer("type", "2", "Ada")

    out, calls = _run(responder)
    assert out["reward"] == 1.0 and out["plans"] == 2 and out["plan"] == ["Click 'Submit'"]
    titles = [c["title"] for c in calls]
    assert titles == [PLAN, "WebAction", "WebAction", PLAN, "WebAction"]
    assert "every step of <plan>" in calls[2]["prompt"] and 'Enter "Ada"' in calls[2]["prompt"]
    assert out["plan_from"] == 2  # the second plan counts from the actions after it
    assert "<done>" not in plans[0] and "<done>\n1. type [2] [Ada] [1]" in plans[1]


def test_a_decision_past_the_plan_may_stop_without_a_second_plan():
    def responder(prompt, title, tools, messages):
        if title == PLAN:
            return {"steps": ["Type 'Ada'"]}
        if "every step of <plan>" in prompt:
            return answer("stop", text="done")
        return answer("type", "2", "Ada")

    out, calls = _run(responder)
    assert out["done_reason"] == "stop" and out["plans"] == 1
    assert [c["title"] for c in calls] == [PLAN, "WebAction", "WebAction"]


def test_a_second_plan_that_runs_out_is_the_last():
    def responder(prompt, title, tools, messages):
        if title == PLAN:
            return {"steps": ["Type 'Ada'"]}
        return answer("type", "2", "Ada")

    out, calls = _run(responder)
    assert out["plans"] == 2 and [c["title"] for c in calls].count(PLAN) == 2
    assert out["done_reason"].startswith("repeated_action")  # then task and history, unplanned


def test_the_plans_tokens_count_with_the_episodes():
    steps = {"steps": ["Type 'Ada' into the text field", "Click the 'Submit' button"]}
    out, calls = _run(_form_responder(steps))
    assert calls[0]["title"] == PLAN
    # every call's prompt, the plan's included (the scripted model counts 4 characters a token)
    assert out["tokens"] >= sum(len(c["prompt"]) // 4 for c in calls)
