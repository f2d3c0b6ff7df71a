"""A scripted research model for the graph tests: answers by role, per task, thread-safe."""

from __future__ import annotations

import re
import threading
import zlib
from contextlib import contextmanager
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.memory import InMemoryStore

from agents.tools.search_tool import make_search_tool
from core.context import Context
from core.model_defaults import DEFAULT_TOOL_STEPS
from core.models import Models
from prompts.research import SAME_AS_EVIDENCE, SHORT_FORM
from tests.unit.fakes import HashEmbeddings, ScriptedChatModel

FIRST = re.compile(r"<answers>\n<answer>(.*?)</answer>")  # the first answer a choice shows
QUESTION = "Who was Ada Lovelace?"
# `main.py run` arguments for the script's tool calls and verdicts (the default "local" model
# gets neither)
STEPS = ["--max-tool-steps", str(DEFAULT_TOOL_STEPS), "--judge", "model"]
# a run's tasks: the planner's two steps, then the request itself
# (agents/research/decompose_query.py)
TASKS = [
    "Find the birth year of Ada Lovelace",
    "Find what Ada Lovelace wrote about the Analytical Engine",
    QUESTION,
]
DOCS = {
    "ada": "[1] Ada Lovelace (source: ada.md)\n"
    "Ada Lovelace was born in 1815. She wrote notes on Babbage's Analytical Engine."
}
NOTES = "\n\n[2] Notes {number} (source: notes.md)\nAda Lovelace, born in 1815, wrote notes."


def found_for(query: str, k: int) -> str:
    """The fake corpus: Ada's passage, and for a search besides the request's own, a passage
    of notes of that search's own (so a task's search finds something the run has not read;
    numbered, not titled with the query's words, which a later search would then repeat)."""
    return DOCS["ada"] + (
        "" if query == QUESTION else NOTES.format(number=zlib.crc32(query.encode()))
    )


TASK_LINE = re.compile(r"<task>\n(.*?)\n</task>", re.S)


class Script:
    """Answers by role. `verdicts[i]` is task i's sequence of needs_retry values (default:
    pass; a list is one queue for all tasks); `plan` is what the decomposer returns;
    `searches` tool calls per attempt."""

    def __init__(
        self,
        verdicts: dict[int, list[bool]] | list[bool] | None = None,
        *,
        use_tools: bool = True,
        searches: int = 1,
        plan: list[Any] | None = None,
    ) -> None:
        # a list is one queue shared by every task, in the order the reflector is called
        self.shared = list(verdicts) if isinstance(verdicts, list) else None
        per_task = verdicts if isinstance(verdicts, dict) else {}
        self.verdicts = {TASKS[i]: list(v) for i, v in per_task.items()}
        self.default_verdict = False
        self.searches, self.use_tools = searches, use_tools
        self.plan = plan if plan is not None else [*TASKS, "  ", TASKS[0]]
        self.attempts: dict[str, int] = {}
        self.executor_prompts: list[str] = []
        self.lock = threading.Lock()

    def verdict(self, task: str) -> bool:
        with self.lock:
            queue = self.shared if self.shared is not None else self.verdicts.get(task)
            return queue.pop(0) if queue else self.default_verdict

    def __call__(self, prompt, title, tools, messages):
        if title == "GoalSetting":
            return {
                "goal": "Explain who Ada Lovelace was and what she did",
                "answer_form": "a paragraph",
                "criteria": ["her birth year"],
            }
        if title == "DecomposedTasks":
            return {"tasks": self.plan}
        if title == "ReflectionOutput":
            needs_retry = self.verdict(TASK_LINE.search(prompt).group(1))
            return {
                "reflection": f"Verdict {str(needs_retry).lower()}: cite the source.",
                "needs_retry": needs_retry,
                "confidence": 0.9,
                "reasons": ["checked"],
            }
        if title == "FinalAnswer":
            return {"answer": "FINAL: Ada Lovelace, born 1815.", "sources": ["ada"]}
        if tools:
            return self.executor(prompt, messages)
        if "Answer the task using only" in prompt:  # the answer from the evidence
            return f"from evidence: {' '.join(evidence_in(prompt).split())[-140:]} (source: ada)"
        return "A direct answer, then facts with sources."

    def executor(self, prompt, messages):
        task = TASK_LINE.search(prompt).group(1)
        done = sum(m.type == "tool" for m in messages)
        if self.use_tools and done < self.searches:
            if not done:
                with self.lock:
                    self.executor_prompts.append(prompt)
            # a new word each step: a search for the task's words alone repeats the first search
            return {"tool": "corpus_search", "args": {"query": f"{task} part{done}"}}
        if not self.use_tools:
            return "I think so."  # no tool call: the executor must ground it
        with self.lock:
            self.attempts[task] = self.attempts.get(task, 0) + 1
            n = self.attempts[task]
        return f"attempt {n} for {task}: born 1815 (source: ada)"


def evidence_in(prompt: str) -> str:
    """What the prompt shows as the run's evidence and the task's own search results."""
    sections = ("evidence", "search_results_for_the_task")
    found = "\n".join(
        prompt.split(f"<{tag}>", 1)[1].split(f"</{tag}>", 1)[0]
        for tag in sections
        if f"<{tag}>" in prompt
    )
    return found.replace(SAME_AS_EVIDENCE, "")


def new_store() -> InMemoryStore:
    return InMemoryStore(index={"dims": 256, "embed": HashEmbeddings(256)})


class Wiring:
    """The research graphs on a scripted model, injected through the run's context.

    `wire(script)` makes the scripted model every role gets (returned, to inspect its calls);
    `wire.context(**settings)` is a Context carrying it and a fake corpus tool;
    `wire.models` / `wire.tools` go to owners that build their own context (the CLI:
    `main.main(argv, models=wire.models, tools=wire.tools)`); `wire.store` is a
    vector-indexed InMemoryStore for the graphs.
    """

    def __init__(self) -> None:
        self.model: ScriptedChatModel | None = None
        self.models = _Scripted(self)
        self.store = new_store()
        tool = make_search_tool(
            found_for,
            name="corpus_search",
            description="Search local documents.",
            k=3,
        )

        @contextmanager
        def fake_tools(ctx):
            yield [tool]

        self.tools = fake_tools

    def __call__(self, script) -> ScriptedChatModel:
        self.model = ScriptedChatModel(responder=script, calls=[])
        return self.model

    def context(self, **settings: Any) -> Context:
        settings.setdefault("tools", self.tools)
        # the script plays a model that calls tools (as a remote one does; the embedded CPU
        # models get none by default)
        settings.setdefault("max_tool_steps", DEFAULT_TOOL_STEPS)
        # ...and whose verdicts judge each attempt (the embedded CPU models' do not)
        settings.setdefault("model_verdicts", True)
        # ...and research: a short answer's first stage (a reading and a hop) is
        # tests/unit/agents/research/test_answer_first.py's subject
        settings.setdefault("answer_first", False)
        return Context(models=self.models, **settings)


class _Scripted(Models):
    """Every role's model is the wiring's current script; embeddings hash (no model)."""

    def __init__(self, wiring: Wiring) -> None:
        super().__init__(embeddings=lambda spec: HashEmbeddings(384))
        self.wiring = wiring

    def chat(self, spec: str) -> ScriptedChatModel:
        assert self.wiring.model is not None, "call wire(script) first"
        return self.wiring.model


@pytest.fixture
def wire() -> Wiring:
    return Wiring()


def past_reflections_seen_next(model, wire) -> str:
    """The <past_reflections> of the planner's prompt of a second run on the same store (a
    related question): what memory from the runs before gave it (goal setting reads only a
    request's own lessons)."""
    from graphs import build_reflective_graph

    model.calls.clear()
    ctx = wire.context(max_retries=1)
    run(build_reflective_graph(), ctx, query="Ada Lovelace?", store=wire.store)
    plan = next(c["prompt"] for c in model.calls if c["title"] == "DecomposedTasks")
    return plan.split("<past_reflections>")[1].split("</past_reflections>")[0]


def run(builder, ctx, query=QUESTION, store=None, thread="t"):
    """Stream a run; returns (nodes in order, parent updates, final state). `nodes` holds every
    node of the parent and of the task subgraphs, as they finished."""
    graph = builder.compile(checkpointer=InMemorySaver(), store=store)
    config = {"configurable": {"thread_id": thread}}
    nodes, updates = [], []
    for namespace, chunk in graph.stream(
        {"query": query}, config, context=ctx, stream_mode="updates", subgraphs=True
    ):
        for node, update in chunk.items():
            if not namespace or namespace[-1].startswith("run_task"):
                nodes.append(node)
            if not namespace:
                updates.append((node, update))
    return nodes, updates, graph.get_state(config).values


class ShortScript(Script):
    """A run whose answer form is the short one; `direct` is the direct reading's reply and
    `choose` the choice the model makes when the two differ."""

    def __init__(self, research: str, direct: str, choose: str | None = None) -> None:
        super().__init__()
        self.research, self.direct, self.choose = research, direct, choose

    def __call__(self, prompt, title, tools, messages):
        if title == "GoalSetting":
            return {"goal": "Name the series", "answer_form": SHORT_FORM, "criteria": []}
        if title == "FinalAnswer":
            return {"answer": self.research, "explanation": "Because.", "sources": ["ada.md"]}
        if title == "AnswerChoice":  # `choose`, or (None) the first answer shown: a position bias
            return {"answer": self.choose or FIRST.search(prompt).group(1)}
        if "Reply with the answer only" in prompt:
            return self.direct
        return super().__call__(prompt, title, tools, messages)
