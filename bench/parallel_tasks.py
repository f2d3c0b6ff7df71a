"""Parallel vs one-at-a-time tasks on the reflective graph: `python bench/parallel_tasks.py --json`.

Four independent steps (on four subjects) over a small local corpus (the real corpus_search tool),
then the request itself (a run's last task, which waits for them), on a scripted model that answers
by role and sleeps a fixed latency per call, as a remote model would. The same graph runs twice in
one invocation: fan-out (max_concurrency=4) and sequential (max_concurrency=1, both in the Context
and in the run config). Each task makes `searches` tool calls, then answers, then is judged:
searches + 2 model calls per task; the plan costs 2 calls on the critical path (goal setting,
decomposition), the request's task its own and the final answer 1. Prints one JSON object with
`fanout_s`, `sequential_s` and `ratio` (fan-out ÷ sequential; the target is ≤ 0.4).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from langchain_core.language_models import BaseChatModel  # noqa: E402
from langchain_core.messages import AIMessage, BaseMessage  # noqa: E402
from langchain_core.outputs import ChatGeneration, ChatResult  # noqa: E402
from langchain_core.utils.function_calling import convert_to_openai_tool  # noqa: E402
from langgraph.store.memory import InMemoryStore  # noqa: E402

# four steps on four subjects: no step's search finds a passage another step read, so each runs
TASKS = [
    "Find the year Jacquard demonstrated his loom",
    "Find who composed the Moonlight Sonata",
    "Find how high Kilimanjaro rises",
    "Find where Ada Lovelace was born",
]
CORPUS = {
    "loom.md": "Joseph Marie Jacquard demonstrated his loom in 1804.",
    "sonata.md": "Beethoven composed the Moonlight Sonata in 1801.",
    "kilimanjaro.md": "Kilimanjaro rises 5,895 metres above the sea.",
    "ada.md": "Ada Lovelace was born in London in 1815.",
}
TASK_LINE = re.compile(r"<task>\n(.*?)\n</task>", re.S)
# shares no word with the corpus: the run's first search finds nothing, so every step's search
# finds passages the run has not read, and every step runs
REQUEST = "Summarise this collection for me"


class LatencyModel(BaseChatModel):
    """Sleeps `latency` seconds per call, then answers as the role asks (see module doc)."""

    latency: float = 1.0
    searches: int = 2
    context_window: int = 8192
    task_calls: list[str] = []  # one entry per executor or reflector call (list.append is atomic)

    def get_num_tokens(self, text: str) -> int:
        return len(text) // 4 + 1  # an estimate is enough for the memory budget here

    @property
    def _llm_type(self) -> str:
        return "latency-scripted"

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self.bind(tools=[convert_to_openai_tool(t) for t in tools])

    def with_structured_output(self, schema: Any, **kwargs: Any) -> Any:
        from core.local_schema import structured_runnable

        return structured_runnable(self, schema)

    def _reply(self, prompt: str, title: str | None, tools: bool, messages: list) -> Any:
        if title == "GoalSetting":
            return {
                "goal": "Answer four questions about the Analytical Engine",
                "answer_form": "a list",
                "criteria": ["4 facts"],
            }
        if title == "FinalAnswer":
            return {"answer": "Four sourced facts.", "sources": ["engine.md"]}
        if title == "DecomposedTasks":
            return {"tasks": [{"task": t, "depends_on": []} for t in TASKS]}
        if title == "ReflectionOutput":
            return {
                "reflection": "Sourced.",
                "needs_retry": False,
                "confidence": 0.9,
                "reasons": [],
            }
        if tools:
            done = sum(m.type == "tool" for m in messages)
            task = TASK_LINE.search(prompt).group(1)  # type: ignore[union-attr]
            if done < self.searches:
                return {"tool": "corpus_search", "args": {"query": f"{task} {done}"}}
            return f"{task}: see the corpus (source: corpus)"
        return "Four sourced facts."

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> ChatResult:
        time.sleep(self.latency)
        schema = kw.get("json_schema")
        prompt = "\n".join(m.text for m in messages)
        title = schema.get("title") if schema else None
        grounded = "Answer the task using only" in prompt  # the answer from what it found
        if kw.get("tools") or grounded or title == "ReflectionOutput":
            self.task_calls.append(title or "executor")
        reply = self._reply(prompt, title, bool(kw.get("tools")), messages)
        if isinstance(reply, dict) and "tool" in reply:
            call = {"name": reply["tool"], "args": reply["args"], "id": f"c{time.monotonic_ns()}"}
            message = AIMessage(content="", tool_calls=[call])
        else:
            message = AIMessage(content=reply if isinstance(reply, str) else json.dumps(reply))
        return ChatResult(generations=[ChatGeneration(message=message)])


def _corpus(folder: Path) -> str:
    for name, text in CORPUS.items():
        (folder / name).write_text(text, encoding="utf-8")
    return str(folder)


def timed_run(model: LatencyModel, corpus_dir: str, max_concurrency: int) -> float:
    """Wall seconds of one run of the reflective graph with every role on `model`."""
    from core.context import Context
    from core.embeddings import HashingEmbeddings
    from core.models import Models
    from core.state import STATE_KEYS
    from graphs.research import build_reflective_graph

    store = InMemoryStore(index={"dims": 256, "embed": HashingEmbeddings(256)})
    graph = build_reflective_graph().compile(store=store)
    ctx = Context(
        corpus_dir=corpus_dir,
        use_browser=False,
        max_retries=0,
        max_concurrency=max_concurrency,
        max_tool_steps=model.searches,  # a remote model's own searches (the embedded gets none)
        model_verdicts=True,  # ...and its verdicts (the embedded's evidence judges instead)
        induction="off",
        models=Models.fixed(model),  # every role on the latency model
    )
    started = time.perf_counter()
    out = graph.invoke(
        {"query": REQUEST},
        {"max_concurrency": max_concurrency},
        context=ctx,
        output_keys=STATE_KEYS,  # its task results, not only the answer
    )
    elapsed = time.perf_counter() - started
    expected = len(TASKS) + 1  # the planner's steps, then the request itself
    if len([r for r in out["results"] if r]) != expected:
        raise RuntimeError(f"the run did not finish its {expected} tasks: {out['results']}")
    return elapsed


def measure(latency: float = 1.0, searches: int = 2) -> dict[str, Any]:
    """Both runs side by side, in this process; the JSON the bench prints."""
    model = LatencyModel(latency=latency, searches=searches)
    with tempfile.TemporaryDirectory() as tmp:
        corpus = _corpus(Path(tmp))
        # one untimed run first: lazy imports and first-use setup would bias whichever arm ran
        # first
        timed_run(LatencyModel(latency=0.0, searches=searches), corpus, max_concurrency=1)
        fanout = timed_run(model, corpus, max_concurrency=len(TASKS))
        sequential = timed_run(model, corpus, max_concurrency=1)
    tasks = len(TASKS) + 1  # the steps, then the request
    return {
        "tasks": tasks,
        "latency_s": latency,
        # counted: the executor's calls (its searches, then its answer) and the reflector's
        "model_calls_per_task": len(model.task_calls) / (2 * tasks),
        "fanout_s": round(fanout, 3),
        "sequential_s": round(sequential, 3),
        "ratio": round(fanout / sequential, 3),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--latency", type=float, default=1.0, help="seconds per model call")
    parser.add_argument("--searches", type=int, default=2, help="tool calls per task attempt")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    result = measure(args.latency, args.searches)
    if args.json:
        print(json.dumps(result))
    else:
        print(
            f"{result['tasks']} tasks, {args.latency}s per call: fan-out {result['fanout_s']}s, "
            f"one at a time {result['sequential_s']}s, ratio {result['ratio']}"
        )


if __name__ == "__main__":
    main()
