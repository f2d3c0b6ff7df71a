"""The executor's tool-calling agent (langchain's create_agent), built once so that LangGraph sees
it as a subgraph of execute_task (Studio draws it; `stream(subgraphs=True)` shows its steps).

Its model, tools and tool-step limit come per run, through the agent's context:

    EXECUTOR.invoke({"messages": [...]}, context=ExecutorRun(model, tools, system, 3))

`RunModelAndTools` puts the run's model and tools into each model call and executes the run's
tools by name. When the agent has used its tool steps, or proposes only calls it already made
(their results are in the transcript; a search for no words beyond an earlier query's, the
search execute_task made for the task included), it stops there without another model call, and
execute_task answers from the evidence gathered (one call; a small model asked to answer inside
its tool transcript mostly copies a call or the note back, so that call would be wasted). A
search query that has left the task's topic (a small model invents URLs) is replaced by the
task's keywords before it runs, and the transcript shows the query that ran. The tools that
read or act on a page are offered once a page is open. Once the run's budget is spent
(`ExecutorRun.stop`), `StopAtBudget` ends the agent before its next model call.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain.agents import create_agent
from langchain.agents.middleware import (
    AgentMiddleware,
    AgentState,
    ModelRequest,
    ModelResponse,
    hook_config,
)
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.outputs import ChatResult
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool
from langgraph.errors import GraphRecursionError
from langgraph.prebuilt.tool_node import ToolCallRequest

from agents.research.topic import on_topic_query
from agents.tools.bm25 import STOPWORDS
from agents.tools.browser_tools import PAGE_TOOLS, page_opened
from agents.tools.search_tool import SearchTool
from prompts.research import NO_SUCH_TOOL
from prompts.untrusted import data

log = logging.getLogger(__name__)


@dataclass
class ExecutorRun:
    """The agent's context for one attempt."""

    model: BaseChatModel
    tools: Sequence[BaseTool]
    system: str = ""
    max_tool_steps: int = 3
    topic: str = ""  # the task: search queries are kept on it
    searched: str = ""  # the query execute_task already searched with (results in the prompt)
    stop: Callable[[], str | None] | None = None  # the run's budget: the cap reached, or None
    by_name: dict[str, BaseTool] = field(init=False)

    def __post_init__(self) -> None:
        self.by_name = {t.name: t for t in self.tools}


class ChosenPerRun(BaseChatModel):
    """Stands in for the model at build time; every call gets the run's model instead."""

    @property
    def _llm_type(self) -> str:
        return "chosen-per-run"

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> ChatResult:
        raise RuntimeError(
            "the executor agent needs its model in the context: "
            "EXECUTOR.invoke(input, context=ExecutorRun(model, tools))"
        )


def _run_of(runtime: Any) -> ExecutorRun:
    run = getattr(runtime, "context", None)
    if not isinstance(run, ExecutorRun):
        raise TypeError(
            "the executor agent needs its run in the context: "
            "EXECUTOR.invoke(input, context=ExecutorRun(model, tools))"
        )
    return run


def tool_steps(messages: Sequence[BaseMessage]) -> int:
    return sum(isinstance(m, ToolMessage) for m in messages)


Signature = tuple[str, "str | frozenset[str]"]
_URL = re.compile(r"\w+://\S+")


def _signature(call: Mapping[str, Any], run: ExecutorRun | None) -> Signature:
    """A call as compared for repeats; a search is its query's topic words (URLs dropped)."""
    query = call["args"].get("query")
    if run is not None and isinstance(run.by_name.get(call["name"]), SearchTool):
        if isinstance(query, str):
            return call["name"], _words(query)
    return call["name"], repr(sorted(call["args"].items()))


def _words(query: str) -> frozenset[str]:
    """The query's words as a search engine weighs them: no function words; numbers and
    short names (BP, UK, 2010) count."""
    found = re.findall(r"\w+", _URL.sub(" ", query).lower())
    return frozenset(w for w in found if w not in STOPWORDS)


def _calls(message: BaseMessage, run: ExecutorRun | None = None) -> list[Signature]:
    if not isinstance(message, AIMessage):
        return []
    return [_signature(c, run) for c in message.tool_calls]


def _repeats(call: Signature, earlier: set[Signature]) -> bool:
    name, key = call
    if isinstance(key, frozenset):  # a search for no new words finds nothing new
        return any(n == name and isinstance(k, frozenset) and key <= k for n, k in earlier)
    return call in earlier


def repeated_last_call(messages: Sequence[BaseMessage], run: ExecutorRun | None = None) -> bool:
    """Did the agent's last step only repeat calls made before (same tool and arguments; for a
    search, no words beyond an earlier query's, the search for the task included)?"""
    steps = [m for m in messages if _calls(m)]
    if not steps:
        return False
    earlier = {call for m in steps[:-1] for call in _calls(m, run)}
    if run is not None and run.searched:  # execute_task's own search, with every search tool
        earlier |= {(t.name, _words(run.searched)) for t in run.tools if isinstance(t, SearchTool)}
    return all(_repeats(call, earlier) for call in _calls(steps[-1], run))


def offered(
    tools: Sequence[BaseTool], messages: Sequence[BaseMessage]
) -> list[BaseTool | dict[str, Any]]:
    """The tools worth a call now: those that need an open page only once one is open (offered
    earlier, a small model reads the blank page with browser_text)."""
    results = [(m.name or "", str(m.text)) for m in messages if isinstance(m, ToolMessage)]
    if page_opened(results):
        return list(tools)
    return [t for t in tools if t.name not in PAGE_TOOLS]


def keep_on_topic(response: Any, run: ExecutorRun) -> Any:
    """The model's search calls with their queries kept on the run's topic (on_topic_query)."""
    messages = getattr(response, "result", None) or [response]
    for message in messages:
        if not isinstance(message, AIMessage) or not run.topic:
            continue
        for call in message.tool_calls:
            query = call["args"].get("query")
            if isinstance(run.by_name.get(call["name"]), SearchTool) and isinstance(query, str):
                call["args"]["query"] = on_topic_query(query, run.topic)
    return response


def _stop() -> ModelResponse:
    """The agent's last step: no answer of its own, so execute_task answers from the evidence."""
    return ModelResponse(result=[AIMessage("")])


class RunModelAndTools(AgentMiddleware):
    """Per-run model and tools, and the tool-step limit that ends in an answer from evidence."""

    def wrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], ModelResponse]
    ) -> ModelResponse:
        run = _run_of(request.runtime)
        if run.max_tool_steps and tool_steps(request.messages) >= run.max_tool_steps:
            return _stop()
        system = SystemMessage(run.system) if run.system else None
        # with no tool steps the model answers on its own, in one call
        tools = offered(run.tools, request.messages) if run.max_tool_steps else []
        with_tools = request.override(model=run.model, tools=tools, system_message=system)
        response = keep_on_topic(handler(with_tools), run)
        proposed = getattr(response, "result", None) or [response]
        if not run.max_tool_steps and any(_calls(m) for m in proposed):
            return _stop()  # a tool call it was not offered (a server may still make one)
        if repeated_last_call([*request.messages, *proposed], run):
            return _stop()
        return response

    def wrap_tool_call(
        self, request: ToolCallRequest, handler: Callable[[ToolCallRequest], Any]
    ) -> Any:
        run = _run_of(request.runtime)
        tool = run.by_name.get(request.tool_call["name"])
        if tool is None:
            known = ", ".join(run.by_name) or "none"
            return ToolMessage(
                NO_SUCH_TOOL.format(name=request.tool_call["name"], known=known),
                tool_call_id=request.tool_call["id"] or "",
                name=request.tool_call["name"],
                status="error",
            )
        return as_data(handler(request.override(tool=tool)))


class StopAtBudget(AgentMiddleware):
    """Ends the agent before its next model call once the run's budget is spent.

    langchain's `before_model` hook with a jump to the end, as its ModelCallLimitMiddleware
    does; that class counts one agent's calls against limits fixed when the agent is built,
    while this cap is the run's (`ExecutorRun.stop`), spent by every node. The attempt then
    answers from what its tools found (execute_task), like an agent out of tool steps.
    """

    @hook_config(can_jump_to=["end"])
    def before_model(self, state: AgentState, runtime: Any) -> dict[str, Any] | None:
        run = _run_of(runtime)
        if run.stop is not None and run.stop():
            return {"jump_to": "end"}
        return None


def as_data(result: Any) -> Any:
    """A tool's text output escaped (prompts.untrusted.data): a page or document cannot fake the
    end of its tool message or start a new instruction; other results pass unchanged."""
    if isinstance(result, ToolMessage) and isinstance(result.content, str):
        return result.model_copy(update={"content": data(result.content)})
    return result


def build_executor_agent():
    """The compiled agent graph; it inherits the parent's checkpointer when run inside a node."""
    middleware = [StopAtBudget(), RunModelAndTools()]
    return create_agent(ChosenPerRun(), tools=[], middleware=middleware, name="executor")


EXECUTOR = build_executor_agent()


def run_executor(agent: Any, run: ExecutorRun, prompt: str) -> tuple[str, list[BaseMessage]]:
    """`agent` (EXECUTOR) on one attempt: its final answer ("" if it had none) and every
    message of the attempt."""
    # each tool step is a model call and a tool call; +3 for the final answer and slack
    config: RunnableConfig = {"recursion_limit": 2 * run.max_tool_steps + 3}
    messages: list[BaseMessage] = [HumanMessage(prompt)]
    try:
        for values in agent.stream(
            {"messages": messages}, config, context=run, stream_mode="values"
        ):
            messages = values["messages"]
    except GraphRecursionError:
        log.warning("executor hit its step limit; answering from the evidence gathered")
        return "", messages
    last = messages[-1]
    return (last.text if isinstance(last, AIMessage) and not last.tool_calls else ""), messages
