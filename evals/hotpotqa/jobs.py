"""HotpotQA questions as worker jobs (evals.common.workers): answer one question, score it, and (in
Reflexion's protocol) reflect on a wrong answer so the next trial can do better.

The answer function is built in the worker from `runner` ("module:function", default
evals.hotpotqa.agent:default_runner) with the payload's model, graph, retries and data directory,
so any AnswerFn can be evaluated, in this process or on Ray.
"""

from __future__ import annotations

import importlib
import inspect
import time
import uuid
from typing import TYPE_CHECKING, Any

from langchain_core.callbacks import BaseCallbackHandler

from core.local_seed import sample_round
from core.models import Models
from evals.common.calls import CallCounter
from evals.common.resources import WorkerResources
from evals.hotpotqa.dataset import HotpotQuestion, load_hotpotqa
from evals.hotpotqa.metrics import exact_match_score, f1_score
from memory.stores.shared_store import SharedMemory

if TYPE_CHECKING:
    from memory.agent_memory import AgentMemory

DEFAULT_RUNNER = "evals.hotpotqa.agent:default_runner"


def _questions(path: str, resources: WorkerResources) -> dict[str, HotpotQuestion]:
    """The file's questions by id, parsed once per worker (it answers many of one file)."""
    return resources.keep(("hotpotqa", path), lambda: {q.id: q for q in load_hotpotqa(path)})


def _runner(spec: str) -> Any:
    module, _, name = spec.partition(":")
    runner = getattr(importlib.import_module(module), name, None)
    if not callable(runner):
        raise ValueError(f"answer-function builder {spec!r} does not exist")
    return runner


def journals(runner: str | None) -> bool:
    """Does this answer-function builder journal its writes (it names a `job` parameter)?"""
    return "job" in inspect.signature(_runner(runner or DEFAULT_RUNNER)).parameters


def _accepts(fn: Any, name: str) -> bool:
    """Does `fn` take the keyword `name`? (A plugged-in builder need not take every one.)"""
    params = inspect.signature(fn).parameters.values()
    return any(p.name == name or p.kind is p.VAR_KEYWORD for p in params)


def answer_question(payload: dict[str, Any], resources: WorkerResources) -> dict[str, Any]:
    """Job payload: file, id, model, graph, max_retries, home, reflections (memory on),
    runner?, arm?, trial?, reflect_on? (Reflexion's retry: the previous trial and answer, whose
    lesson it writes first), embedding_model?, max_tool_steps? and context?
    (Context settings; each passed to a builder that takes it), memory_url? and memory_scope?
    (memory shared in PostgreSQL, see shared_of), undone_writes? (what the driver already took
    back of a cut attempt). Returns the scored record."""
    q = _questions(str(payload["file"]), resources)[payload["id"]]
    counter = CallCounter()
    build = _runner(payload.get("runner") or DEFAULT_RUNNER)
    job = job_name(payload, q.id)
    kwargs = _builder_kwargs(build, payload, resources, job)
    started, error, answer, told, undone = time.perf_counter(), None, "", {}, 0
    lesson_error, lesson_seconds = None, None
    try:
        if "job" in kwargs:  # the builder journals its writes: undo a cut attempt's first
            undone = _undo_cut_attempt(payload, resources.models, job)
        if payload.get("reflect_on"):  # Reflexion: the lesson of the failed trial, then a retry
            lesson_error = _reflect(payload, q, resources.models, callbacks=[counter])
            lesson_seconds = time.perf_counter() - started  # its call is in `calls`
            started = time.perf_counter()  # the answer's time, as in trial 1
        answer_fn = build(**kwargs, callbacks=[counter])
        # trial k samples anew, also where nothing learned changed its prompts (core.local_seed)
        with sample_round(int(payload.get("trial", 1)) - 1):
            answer, _ = answer_fn(q.question, q.paragraphs)
        told = what_it_told(answer_fn)
    except Exception as exc:  # noqa: BLE001 - one failing question is recorded; the run goes on
        error = f"{type(exc).__name__}: {exc}"
    record = _scored(payload, q, answer, counter.calls, time.perf_counter() - started, error)
    record.update(counter.tokens())
    if payload.get("verdict") == "gold" and error is None:  # after its answer was scored
        run = told.pop("run", None)
        record["verdict"] = gold_verdict(payload, resources.models, run, record["em"], job)
    record.update({k: v for k, v in told.items() if k != "run"})
    undone += int(payload.get("undone_writes") or 0)  # taken back by the driver, if it did
    if undone:  # an earlier attempt at this job was cut; what it saved was taken back
        record["undone_writes"] = undone
    if lesson_seconds is not None:  # the retry wrote a lesson first
        record["lesson_seconds"] = round(lesson_seconds, 3)
    if lesson_error is not None:  # the retry ran without the lesson
        record["reflection_error"] = lesson_error
    return record


def what_it_told(answer_fn: Any) -> dict[str, Any]:
    """What an answer function says of its last answer, beside it, as the record keeps it:
    `answer_check` (the graphs' check, or how their chain ended), `recalled` (memories of
    earlier runs that reached its prompts), `run` (the id its run was recorded under), `path`
    (how it found its answer), `read` (the sources of the passages its prompts showed: the
    evidence recall of a pooled corpus)."""
    told: dict[str, Any] = {}
    if check := getattr(answer_fn, "last_check", None):
        told["answer_check"] = dict(check)
    if (recalled := getattr(answer_fn, "last_recalled", None)) is not None:
        told["recalled"] = list(recalled)
    told["run"] = getattr(answer_fn, "last_run", None)
    if path := getattr(answer_fn, "last_path", None):
        told["path"] = dict(path)
    if (read := getattr(answer_fn, "last_read", None)) is not None:
        told["read"] = list(read)
    return told


def gold_verdict(
    payload: dict[str, Any], models: Models, run: str | None, right: bool, job: str
) -> dict[str, Any]:
    """Judge the question's run by its true answer in the memory it was recorded in (journaled
    as the job's own writes, so a cut job's verdict is undone with its run): what the verdict
    took back and taught (agents.research.learning.judge_run), or why it could not."""
    from agents.research.learning import judge_run
    from core.context import Context
    from evals.common.memory_store import project_store
    from memory.agent_memory import AgentMemory

    if run is None:
        return {"right": right, "error": "the run recorded no trajectory to judge"}
    ctx = Context(models=models, model=payload["model"])
    embedding_model = payload.get("embedding_model", "local")
    try:
        with project_store(
            payload["home"], embedding_model, models, shared=shared_of(payload), job=job
        ) as store:
            verdict = judge_run(AgentMemory(store), ctx, run, right=right, judged_by="gold")
    except Exception as exc:  # noqa: BLE001 - the scored answer is kept; the record says why
        return {"right": right, "error": f"{type(exc).__name__}: {exc}"}
    return {"right": right, "forgotten": verdict.forgotten, "learned": verdict.learned}


def _scored(
    payload: dict[str, Any],
    q: HotpotQuestion,
    answer: str,
    calls: int,
    seconds: float,
    error: str | None,
) -> dict[str, Any]:
    """The record of one answer: its question, the answer scored against the true one (the
    best of the true answer and its aliases), cost."""
    em = any(exact_match_score(answer, right) for right in q.answers)
    return {
        "arm": payload.get("arm", ""),
        "trial": payload.get("trial", 1),
        "id": q.id,
        "question": q.question,
        "gold": q.answer,
        "answer": answer,
        "em": em,
        "f1": max(f1_score(answer, right)[0] for right in q.answers),
        "calls": calls,
        "seconds": round(seconds, 3),
        "error": error,
        "success": em,
    }


def _builder_kwargs(
    build: Any, payload: dict[str, Any], resources: WorkerResources, job: str
) -> dict[str, Any]:
    """What the answer-function builder gets: the payload's settings, each optional one only
    when the builder takes it (a plugged-in builder need not take every one)."""
    kwargs = {k: payload[k] for k in ("model", "max_retries", "home", "graph", "reflections")}
    for optional in ("embedding_model", "max_tool_steps", "context", "corpus"):
        if optional in payload and _accepts(build, optional):
            kwargs[optional] = payload[optional]
    if _accepts(build, "models"):  # the worker's models, loaded once for all its questions
        kwargs["models"] = resources.models
    if payload.get("memory_url"):  # memory in a database every worker shares
        if not _accepts(build, "shared"):
            raise ValueError(f"runner {payload.get('runner')!r} cannot keep memory shared")
        kwargs["shared"] = shared_of(payload)
    # a builder that names `job` journals its writes, to be undone if this job is cut
    if "job" in inspect.signature(build).parameters:
        kwargs["job"] = job
    return kwargs


def job_name(payload: dict[str, Any], question_id: str) -> str:
    """The job's name in its memory's journal: its trial and question (the memory is its arm's)."""
    return f"hotpotqa/{payload.get('trial', 1)}/{question_id}".replace(".", "_")  # a label


def _undo_cut_attempt(payload: dict[str, Any], models: Models, job: str) -> int:
    """A job runs only when it has no record; if it ran before and was cut, undo what that
    attempt saved, so the question never reads lessons from an attempt at itself."""
    if not payload.get("reflections"):
        return 0
    from evals.common.memory_store import undo_cut_job

    embedding_model = payload.get("embedding_model", "local")
    return undo_cut_job(payload["home"], embedding_model, models, shared_of(payload), job)


def shared_of(payload: dict[str, Any]) -> SharedMemory | None:
    """The shared memory a job's payload names (`memory_url`, `memory_scope`), if any."""
    if not payload.get("memory_url"):
        return None
    return SharedMemory(str(payload["memory_url"]), tuple(payload.get("memory_scope") or ()))


def _reflect(
    payload: dict[str, Any],
    q: HotpotQuestion,
    models: Models,
    callbacks: list[BaseCallbackHandler] | None = None,
) -> str | None:
    """Reflexion's step before a retry: the previous trial's answer (`reflect_on`) was judged
    wrong (exact match against the true answer, which the reflector never sees); save the
    lesson in the arm's reflection memory under an id of its own (a rerun replaces it).
    `callbacks` see the reflector's calls (the record's cost). Returns why no lesson was
    saved, or None."""
    from evals.common.episode_reflection import TEXT_THINGS
    from evals.common.memory_store import project_store
    from evals.common.reflection import ReflectionFailed, reflect_on_attempt
    from evals.hotpotqa.direct import paragraphs_text
    from memory.agent_memory import AgentMemory

    # The same store the graph reads its reflections from (see hotpotqa_agent.make_answer_fn).
    embedding_model = payload.get("embedding_model", "local")
    before, job = payload["reflect_on"], job_name(payload, q.id)
    rid = lesson_id(job, int(before["trial"]))
    with project_store(
        payload["home"],
        embedding_model,
        models,
        shared=shared_of(payload),
        job=job,
    ) as store:
        memory = AgentMemory(store)
        chat = models.chat(payload["model"])
        if callbacks:  # a copy: the worker's model is shared by its jobs
            chat = chat.model_copy(update={"callbacks": callbacks})
        try:
            reflect_on_attempt(
                chat,
                memory,
                task=q.question,
                attempt=f"answer: {before['answer'] or '(none)'}",
                success=False,
                feedback=f"the answer {before['answer']!r} did not match the correct answer",
                context=paragraphs_text(q.paragraphs),  # as Reflexion's CoT reflector reads
                rid=rid,
                earlier=earlier_lessons(memory, q.question, rid),
                concrete=TEXT_THINGS,
            )
        except ReflectionFailed as err:
            return str(err)
    return None


def lesson_id(job: str, failed_trial: int) -> str:
    """The id of the lesson job `job` (a retry) writes on trial `failed_trial`'s answer."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"reflexion/{job}/{failed_trial}"))


def earlier_lessons(memory: AgentMemory, question: str, rid: str) -> list[str]:
    """The lessons already written for `question` in its memory, oldest first (not `rid`, the
    one being written: a rerun of a cut job does not show the reflector its own lesson)."""
    mine = [r for r in memory.list_reflections() if r.task == question and r.id != rid]
    return [r.reflection for r in sorted(mine, key=lambda r: r.created_at)]
