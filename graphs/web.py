"""The web agent: observe the page, plan the task's steps once, then decide one action and act;
loop until stop, done or a limit.

Each node is a function of the same name in agents/web/<node>.py; every prompt its nodes send
is in prompts/web.py. The run's browser lives in its context (agents.web.session).
"""

from __future__ import annotations

from typing import Literal

from langgraph.graph import END, START, StateGraph

from agents.web.act import act
from agents.web.decide import decide
from agents.web.finish import finish
from agents.web.observe import observe
from agents.web.plan import needs_plan, plan
from agents.web.session import MAX_STEPS_CAP, MODEL_RETRY
from browser.trajectory import TrajectoryStep
from core.served import served
from core.state import WebAgentInput, WebAgentState
from core.web_context import WebAgentContext

WebBuilder = StateGraph[WebAgentState, WebAgentContext, WebAgentInput, WebAgentState]
# Each action is three supersteps (observe, decide, act) plus plan and finish.
RECURSION_LIMIT = 3 * MAX_STEPS_CAP + 10


def build_web_graph() -> WebBuilder:
    """The uncompiled builder; compile it with your own checkpointer/store."""
    builder = StateGraph(WebAgentState, context_schema=WebAgentContext, input_schema=WebAgentInput)
    builder.add_node("observe", observe)  # read the page (the first look opens the browser)
    builder.add_node("plan", plan, retry_policy=MODEL_RETRY)  # the task's steps
    builder.add_node("decide", decide, retry_policy=MODEL_RETRY)  # the model picks one action
    builder.add_node("act", act)  # carry it out; the environment applies the limits
    builder.add_node("finish", finish)  # reward or judge, record the run, close the browser
    builder.add_edge(START, "observe")  # the task starts from what the page shows
    builder.add_conditional_edges(  # plan first (and once more if it runs out); then decide
        "observe", route_after_observe, {"plan": "plan", "decide": "decide"}
    )
    builder.add_edge("plan", "decide")
    builder.add_edge("decide", "act")
    builder.add_conditional_edges(  # look again, or settle the episode once it ended
        "act", route_after_act, {"observe": "observe", "finish": "finish"}
    )
    builder.add_edge("finish", END)
    return builder


def route_after_observe(state: WebAgentState) -> Literal["plan", "decide"]:
    """Plan before the first action, and again when the plan's steps are done but the task
    goes on (agents.web.plan.needs_plan); else straight to the next decision."""
    history = [TrajectoryStep(**step) for step in state.get("steps") or []]
    plan, start = state.get("plan") or [], state.get("plan_from", 0)
    page = state.get("observation", "")
    return "plan" if needs_plan(state.get("plans", 0), plan, start, history, page) else "decide"


def route_after_act(state: WebAgentState) -> Literal["observe", "finish"]:
    """Finish once the episode ended (stop, a limit, the task itself); else look again."""
    return "finish" if state.get("done_reason") else "observe"


# Compiled without a checkpointer: `langgraph dev` and embedding apps bring their own.
web_graph = build_web_graph().compile(name="web_agent").with_config(recursion_limit=RECURSION_LIMIT)
# What langgraph.json serves: the same graph, each run's context admitted first against what
# the server's operator offers (core/served.py), its start page one of the operator's origins.
served_web_graph = served(web_graph)
