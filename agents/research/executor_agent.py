"""The executor's tool-calling agent (langchain's create_agent), built once so that LangGraph sees
it as a subgraph of execute_task (Studio draws it; `stream(subgraphs=True)` shows its steps).

Its model, tools and tool-step limit come per run, through the agent's context:

    EXECUTOR.invoke({"messages": [...]}, context=ExecutorRun(model, tools, system, 3))

`RunModelAndTools` puts the run's model and tools into each model call and executes the run's
tools by name. When the agent has used its tool steps, the next model call gets no tools and a
note to answer from what the tools returned, so the evidence is kept and used, not thrown away;
so does a call that repeats one the agent already made (its result is in the transcript). A
search query that has left the task's topic (a small model invents URLs) is replaced by the
task's keywords before it runs, and the transcript shows the query that ran.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain.agents import create_agent
from langchain.agents.middleware import AgentMiddleware, ModelRequest, ModelResponse
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.outputs import ChatResult
from langchain_core.tools import BaseTool
from langgraph.prebuilt.tool_node import ToolCallRequest

from agents.tools.grounding import SearchTool, on_topic_query
from prompts.execute import TOOL_LIMIT_NOTE
from prompts.untrusted import data


@dataclass
class ExecutorRun:
    """The agent's context for one attempt."""

    model: BaseChatModel
    tools: Sequence[BaseTool]
    system: str = ""
    max_tool_steps: int = 3
    topic: str = ""  # the task: search queries are kept on it
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


def _calls(message: BaseMessage) -> list[tuple[str, str]]:
    if not isinstance(message, AIMessage):
        return []
    return [(c["name"], repr(sorted(c["args"].items()))) for c in message.tool_calls]


def repeated_last_call(messages: Sequence[BaseMessage]) -> bool:
    """Did the agent's last step only repeat calls it had made before (same tool, same args)?"""
    steps = [m for m in messages if _calls(m)]
    if len(steps) < 2:
        return False
    earlier = {call for m in steps[:-1] for call in _calls(m)}
    return all(call in earlier for call in _calls(steps[-1]))


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


class RunModelAndTools(AgentMiddleware):
    """Per-run model and tools, and the tool-step limit that ends in an answer from evidence."""

    def wrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], ModelResponse]
    ) -> ModelResponse:
        run = _run_of(request.runtime)
        system = SystemMessage(run.system) if run.system else None
        done = tool_steps(request.messages) >= run.max_tool_steps
        if done or repeated_last_call(request.messages):
            messages = [*request.messages, HumanMessage(TOOL_LIMIT_NOTE)]
            return handler(
                request.override(
                    model=run.model, tools=[], messages=messages, system_message=system
                )
            )
        with_tools = request.override(model=run.model, tools=list(run.tools), system_message=system)
        return keep_on_topic(handler(with_tools), run)

    def wrap_tool_call(
        self, request: ToolCallRequest, handler: Callable[[ToolCallRequest], Any]
    ) -> Any:
        run = _run_of(request.runtime)
        tool = run.by_name.get(request.tool_call["name"])
        if tool is None:
            known = ", ".join(run.by_name) or "none"
            return ToolMessage(
                f"Error: there is no tool {request.tool_call['name']!r} (tools: {known}).",
                tool_call_id=request.tool_call["id"] or "",
                name=request.tool_call["name"],
                status="error",
            )
        return as_data(handler(request.override(tool=tool)))


def as_data(result: Any) -> Any:
    """A tool's text output escaped (prompts/untrusted.py): a page or document cannot fake the
    end of its tool message or start a new instruction; other results pass unchanged."""
    if isinstance(result, ToolMessage) and isinstance(result.content, str):
        return result.model_copy(update={"content": data(result.content)})
    return result


def build_executor_agent():
    """The compiled agent graph; it inherits the parent's checkpointer when run inside a node."""
    return create_agent(ChosenPerRun(), tools=[], middleware=[RunModelAndTools()], name="executor")


EXECUTOR = build_executor_agent()
