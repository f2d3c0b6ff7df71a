"""The web agent: observe the page, decide one action, act; loop until stop, done or a limit."""

from __future__ import annotations

from langgraph.graph import END, START, StateGraph

from agents.web.nodes import DECIDE_RETRY, MAX_STEPS_CAP, act, decide, finish, observe
from core.state import WebAgentInput, WebAgentState
from core.web_context import WebAgentContext
from graphs.routing import route_after_act

WebBuilder = StateGraph[WebAgentState, WebAgentContext, WebAgentInput, WebAgentState]
# Each action is three supersteps (observe, decide, act) plus setup and finish.
RECURSION_LIMIT = 3 * MAX_STEPS_CAP + 10


def build_web_agent_graph() -> WebBuilder:
    """The uncompiled builder; compile it with your own checkpointer/store."""
    builder = StateGraph(WebAgentState, context_schema=WebAgentContext, input_schema=WebAgentInput)
    builder.add_node("observe", observe)
    builder.add_node("decide", decide, retry_policy=DECIDE_RETRY)
    builder.add_node("act", act)
    builder.add_node("finish", finish)

    builder.add_edge(START, "observe")
    builder.add_edge("observe", "decide")
    builder.add_edge("decide", "act")
    builder.add_conditional_edges(
        "act", route_after_act, {"observe": "observe", "finish": "finish"}
    )
    builder.add_edge("finish", END)
    return builder


# Compiled without a checkpointer: `langgraph dev` and embedding apps bring their own.
graph = (
    build_web_agent_graph().compile(name="web_agent").with_config(recursion_limit=RECURSION_LIMIT)
)
