"""Run-time configuration of the graphs: one model per role, limits, and where data lives."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from core.model_spec import parse_spec

DEFAULT_MODEL = "local"
DEFAULT_TOOL_STEPS = 3  # executor tool calls per attempt, for models that choose their own
MAX_TOOL_STEPS = 50  # the most a run or an eval may ask for


def default_home() -> str:
    """The data directory: $AGENT_HOME, else ./tmp next to the project."""
    return os.environ.get("AGENT_HOME") or str(Path(__file__).resolve().parent.parent / "tmp")


def is_embedded_model(spec: str) -> bool:
    """Is `spec` the embedded SmolLM2 (`local`; not a GGUF the user names with `local:PATH`)?"""
    parsed = parse_spec(spec)
    return parsed.provider is None and not parsed.model


@dataclass(kw_only=True)
class MemorySettings:
    """Where memory lives and how much of it a prompt gets: read by every graph."""

    embedding_model: str = field(
        default="local", metadata={"description": "Embeddings for memory search."}
    )
    reflections_k: int = field(default=3, metadata={"description": "Past reflections per prompt."})
    workflows_k: int = field(default=3, metadata={"description": "Workflows per prompt."})
    home: str = field(
        default_factory=default_home,
        metadata={"description": "Data directory for memories, workflows and checkpoints."},
    )
    memory_namespace: str = field(
        default="default", metadata={"description": "Project/user namespace for memories."}
    )
    min_relevance: float = field(
        # calibrated for all-MiniLM-L6-v2 by bench/relevance_floor.py on HotpotQA: 93% of
        # same-subject pairs pass it, 1.8% of unrelated pairs do
        default=0.27,
        metadata={
            "description": "Relevance floor: a memory reaches a prompt only if its cosine "
            "similarity to the prompt's subject is at least this (0.27 suits the default "
            "MiniLM embeddings; recalibrate with bench/relevance_floor.py for others)."
        },
    )


@dataclass(kw_only=True)
class Context(MemorySettings):
    """The research graphs' `context_schema`; nodes read it through `Runtime[Context]`.

    Every field is a plain value so LangGraph Studio can edit it per assistant.
    """

    planner_model: str = field(
        default=DEFAULT_MODEL,
        metadata={"description": "Model for goal setting and decomposition ('provider:model')."},
    )
    executor_model: str = field(
        default=DEFAULT_MODEL, metadata={"description": "Model that runs each task with tools."}
    )
    reflector_model: str = field(
        default=DEFAULT_MODEL, metadata={"description": "Model that judges each task result."}
    )
    aggregator_model: str = field(
        default=DEFAULT_MODEL, metadata={"description": "Model that writes the final answer."}
    )
    max_retries: int = field(
        default=2, metadata={"description": "Retries allowed per task (N retries = N+1 attempts)."}
    )
    max_concurrency: int = field(
        default=0,
        metadata={
            "description": "Tasks run at once (independent tasks fan out; 1 = one at a time;"
            " 0 = 4, or 1 when the executor is the embedded model: its calls queue on one"
            " instance, and two tasks taking turns would spoil each other's prompt cache)."
        },
    )
    max_tool_steps: int | None = field(
        default=None,
        metadata={
            "description": "Tool calls the executor may make per attempt, after the search for"
            " the task that starts it (0 = answer from that search in one call; unset = 3, or 0"
            " when the executor is the embedded model: its own search queries are noise)."
        },
    )
    corpus_dir: str | None = field(
        default=None, metadata={"description": "Folder of local documents to search offline."}
    )
    use_browser: bool = field(
        default=True, metadata={"description": "Give the executor the Playwright browser tools."}
    )
    allowed_origins: list[str] = field(
        default_factory=list,
        metadata={
            "description": "Origins the browser may open besides the defaults (offline: files "
            "under the corpus and the project's local pages; with web search: the origins of "
            "this run's search results). '*' allows any origin."
        },
    )
    induction: str = field(
        default="rule",
        metadata={"description": "Online workflow induction: off, rule (dedup'd examples) or llm."},
    )
    induction_every: int = field(
        default=1, metadata={"description": "Update workflows after every N successful tasks."}
    )

    @property
    def tool_steps(self) -> int:
        """How many tool calls the executor may make per attempt (`max_tool_steps` resolved).
        The embedded model gets none: its own search queries were noise in every profiled run
        (random strings, URLs), so its attempt is one call over the search for the task."""
        if self.max_tool_steps is not None:
            return self.max_tool_steps
        return 0 if is_embedded_model(self.executor_model) else DEFAULT_TOOL_STEPS

    @property
    def task_concurrency(self) -> int:
        """How many tasks run at once (`max_concurrency`, its 0 resolved)."""
        if self.max_concurrency > 0:
            return self.max_concurrency
        return 1 if parse_spec(self.executor_model).provider is None else 4
