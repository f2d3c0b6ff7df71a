"""The HotpotQA AnswerFn: the reflective graph searches the question's own 10 paragraphs
(distractor) or every question's pooled (`corpus`, evals.hotpotqa.pooled), its answer scored in
HotpotQA's short form; `direct` answers in one call over the paragraphs, `direct-candidates`
chooses among their spans; `closed`, `rag` and `react` are evals.hotpotqa.baselines'."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.runnables import RunnableConfig, RunnableLambda

from agents.research.answer_text import clean_short_answer
from agents.research.memory_context import from_before
from agents.research.reflect_on_answer import recorded_run
from core.context import Context
from core.models import Models
from core.state import STATE_KEYS
from evals.common.memory_store import SuccessLessonsOnly, project_store
from evals.hotpotqa.baselines import BASELINES, baseline_answer_fn
from evals.hotpotqa.dataset import AnswerFn
from evals.hotpotqa.direct import direct_answer_fn
from evals.hotpotqa.short_answer import short_answer
from graphs.research import build_graph
from memory.agent_memory import AgentMemory
from memory.stores.shared_store import SharedMemory


def question_corpus(question: str, home: str) -> Path:
    """The folder holding one question's own paragraphs as a corpus (distractor), under home."""
    return Path(home) / "hotpotqa" / hashlib.sha1(question.encode()).hexdigest()[:12]


def _corpus_for(question: str, paragraphs: Sequence[Any], home: str) -> str:
    from agents.tools.corpus import save_passages

    folder = question_corpus(question, home)
    items = [(p.title, p.text) if hasattr(p, "title") else tuple(p) for p in paragraphs]
    save_passages(items, folder)
    return str(folder)


# "direct" is no agent: one model call answers over the question's 10 paragraphs in free text
# (evals.hotpotqa.direct), with past reflections in the prompt when memory is on - Reflexion's
# chain-of-thought-with-context baseline. "direct-candidates" makes that call choose among the
# paragraphs' candidate spans by grammar (evals.hotpotqa.candidates), for models too small to
# write a short answer.
GRAPHS = ("reflective", "single-path", "direct", "direct-candidates", *BASELINES)
# graphs that read the question's own paragraphs, whatever corpus the setting pools
OWN_PARAGRAPHS = ("direct", "direct-candidates")
# an experiment arm's settings, not the product's Context's (evals.hotpotqa.single.MEMORY_KNOBS)
LAB_KNOBS = ("failure_lessons",)


def default_runner(*, graph: str = "reflective", **settings: Any) -> AnswerFn:
    """The AnswerFn behind `eval hotpotqa`: make_answer_fn with the job's `graph` (the product's
    `reflective` or `single-path`, or a baseline) and its other settings. The job's payload names
    this function (evals.hotpotqa.jobs.DEFAULT_RUNNER), so tests swap it for a fake runner."""
    return make_answer_fn(graph_name=graph, **settings)


def make_answer_fn(
    *,
    model: str,
    max_retries: int,
    home: str,
    graph_name: str = "reflective",
    reflections: bool = True,
    callbacks: Sequence[Any] = (),
    embedding_model: str = "local",
    max_tool_steps: int | None = None,
    models: Models | None = None,
    context: Mapping[str, Any] | None = None,
    shared: SharedMemory | None = None,
    job: str | None = None,
    corpus: str | None = None,
):
    """An AnswerFn(question, paragraphs) -> (answer, trials) over one of the product's graphs.

    With `reflections` the graph is compiled with the project's store under `home` (as the CLI
    does: past reflections and workflows in its prompts, its own saved there);
    `reflections=False` compiles it without a store, so memory is off (the memory-off arm).
    `callbacks` see every model call (e.g. a call counter). Memory search embeds with
    `embedding_model` and keeps only memories past Context's relevance floor. `max_tool_steps`
    None is the Context's default; `models` are the worker's (built here when not given);
    `context` sets more of each run's Context (what of memory reaches its prompts:
    evals.hotpotqa.single.MEMORY_KNOBS); `shared` keeps memory in a PostgreSQL database shared
    by the workers; `job` names the job in its memory's journal (evals.common.journal); `corpus`
    is the folder every question searches (the pooled setting; None: each question's own
    paragraphs).
    """
    if graph_name not in GRAPHS:
        raise ValueError(f"--graph must be one of {', '.join(GRAPHS)}, not {graph_name!r}")
    models = models or Models()
    if graph_name in BASELINES:
        return baseline_answer_fn(
            graph_name, models.chat(model), corpus=corpus, callbacks=callbacks
        )
    if graph_name.startswith("direct"):
        return direct_answer_fn(
            model, home, reflections, callbacks, embedding_model, models, graph_name, shared
        )
    return _graph_answer_fn(
        model,
        max_retries,
        home,
        graph_name,
        reflections,
        callbacks,
        embedding_model,
        max_tool_steps,
        models,
        dict(context or {}),
        shared,
        job,
        corpus,
    )


def _graph_answer_fn(
    model: str,
    max_retries: int,
    home: str,
    graph_name: str,
    reflections: bool,
    callbacks: Sequence[Any],
    embedding_model: str,
    max_tool_steps: int | None,
    models: Models,
    settings: dict[str, Any],
    shared: SharedMemory | None,
    job: str | None,
    corpus: str | None = None,
):
    config: RunnableConfig = {"callbacks": list(callbacks)}
    told = GraphAnswerFn(_unset, {}, [], [])  # what the last run did, beside its answer

    def answer_fn(question: str, paragraphs: Sequence[Any]) -> tuple[str, list[str]]:
        ctx = Context(
            model=model,  # every role
            max_retries=max_retries,
            use_browser=False,
            home=home,
            corpus_dir=corpus or _corpus_for(question, paragraphs, home),
            embedding_model=embedding_model,
            max_tool_steps=max_tool_steps,
            models=models,
            **{k: v for k, v in settings.items() if k not in LAB_KNOBS},
        )
        with project_store(
            home, ctx.embedding_model, models, on=reflections, shared=shared, job=job
        ) as store:
            graph = build_graph(graph_name).compile(store=_as_prompts_see(store, settings))
            # the run's workings too: its checks, memories and task count are scored
            out = graph.invoke({"query": question}, config, context=ctx, output_keys=STATE_KEYS)
            saved = out.get("reflection_ids", [])
            told.last_recalled = from_before(AgentMemory(store), out.get("recalled", []), saved)
            told.runs = _recorded(store, out, max_retries)
        told.last_check, told.last_path = _checks_of(out), path_of(out)
        told.last_read = read_sources(out)
        answer = clean_short_answer(out.get("answer", ""))  # as `run --json` reports it
        if not answer:  # no answer of its own: cut one from the final output (a model call)
            answer = _cut(models.chat(model), question, out.get("final_output", ""), config)
        return answer, [answer]

    told.answer = answer_fn
    return told


def _unset(question: str, paragraphs: Sequence[Any]) -> tuple[str, list[str]]:
    raise RuntimeError("the answer function is set once it is built")


def path_of(out: dict[str, Any]) -> dict[str, Any]:
    """How a run found its answer (a worked example shows it, evals.hotpotqa.expel_memory):
    the hops of its chain (what each found and searched next), how a researched answer was
    checked, its tasks, the passages it cited."""
    final = out.get("answer_check") or {}
    cited = [
        {"source": c.get("source") or c.get("title", ""), "sentences": c.get("sentences", "")}
        for c in out.get("citations") or []
    ]
    chain = [dict(link) for link in out.get("chain") or []]
    path = {"chain": chain, "how": final.get("how") or (chain[-1].get("how") if chain else None)}
    return {**path, "tasks": list(out.get("tasks") or []), "cited": cited}


def read_sources(out: dict[str, Any]) -> list[str]:
    """The sources of every passage the run's prompts showed: its first search's, the hits its
    hops and tasks read, the documents its tasks read."""
    from agents.research.sources import title_and_source, unique

    hit_sources = [title_and_source(hit)[1] for hit in out.get("read") or []]
    return unique([*(out.get("evidence_sources") or []), *hit_sources, *(out.get("sources") or [])])


def _as_prompts_see(store: Any, settings: dict[str, Any]) -> Any:
    """The store the graph reads: without lessons learned from failures when the arm says so
    (`failure_lessons` False: the stream's carry-successes)."""
    off = store is not None and settings.get("failure_lessons") is False
    return SuccessLessonsOnly(store) if off else store


def _checks_of(out: dict[str, Any]) -> dict[str, Any]:
    """What the run's check compared (a researched short answer's), or how its chain ended."""
    chain = out.get("chain") or []
    ended = {"how": chain[-1].get("how", ""), "hops": len(chain)} if chain else {}
    return dict(out.get("answer_check") or ended)


def _recorded(store: Any, out: dict[str, Any], max_retries: int) -> list[str]:
    """[the id the run's trajectory is in memory under], or [] (memory off, nothing recorded)."""
    if store is None or not out.get("run_id"):
        return []
    tasks = len(out.get("tasks") or [])
    found = recorded_run(AgentMemory(store), None, out["run_id"], tasks, max_retries)
    return [found] if found else []


def _cut(chat: BaseChatModel, question: str, text: str, config: RunnableConfig) -> str:
    """The short answer in `text`, run as a runnable with the run's config, so its model call
    reaches the callbacks."""
    cut: RunnableLambda[str, str] = RunnableLambda(lambda t: short_answer(chat, question, t))
    return cut.invoke(text, config=config)


@dataclass
class GraphAnswerFn:
    """A graph's AnswerFn that also tells what check_answer did on its last question
    (`last_check`: research, direct, chosen, how; empty when nothing was checked), which
    memories of earlier runs reached its prompts (`last_recalled`: ids, `workflow:NAME`),
    the id its run was recorded under in memory (`last_run`; None before any run) and how it
    found its answer (`last_path`, path_of)."""

    answer: AnswerFn
    last_check: dict[str, Any]
    last_recalled: list[str]
    runs: list[str]
    last_path: dict[str, Any] = field(default_factory=dict)
    last_read: list[str] = field(default_factory=list)

    @property
    def last_run(self) -> str | None:
        return self.runs[0] if self.runs else None

    def __call__(self, question: str, paragraphs: Sequence[Any]) -> tuple[str, Sequence[str]]:
        return self.answer(question, paragraphs)
