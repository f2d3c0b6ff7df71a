"""Run-time configuration of the graphs: their models, limits, and where data lives."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from pydantic.json_schema import SkipJsonSchema

from core.model_defaults import default_tool_steps, model_judges
from core.model_spec import parse_spec
from core.role_models import ModelChoice, ModelSettings, Role, role_field
from core.run_budget import Caps, RunBudget
from prompts.research import ROLE

if TYPE_CHECKING:  # LangChain loads when a model is built
    from langchain_core.language_models import BaseChatModel

MAX_TOOL_STEPS = 50  # the most a run or an eval may ask for
DEFAULT_HOPS, MAX_HOPS = 4, 10  # hops along a short answer's chain: by default, at most


APP_NAME = "reflective-agent"  # the folder under the user's data folder
PACKAGE_ROOT = Path(__file__).resolve().parent.parent  # a checkout's root, or site-packages


def default_home(environ: Mapping[str, str] = os.environ, root: Path = PACKAGE_ROOT) -> str:
    """The data directory: $AGENT_HOME; in a checkout (pyproject.toml beside the packages) its
    ./tmp; installed, the user's data folder ($XDG_DATA_HOME/reflective-agent, else
    ~/.local/share/reflective-agent), never the install folder itself."""
    if environ.get("AGENT_HOME"):
        return environ["AGENT_HOME"]
    if (root / "pyproject.toml").is_file():
        return str(root / "tmp")
    data = environ.get("XDG_DATA_HOME", "")
    if not os.path.isabs(data):  # the XDG spec: a relative value is to be ignored
        data = str(Path(environ.get("HOME") or Path.home()) / ".local" / "share")
    return str(Path(data) / APP_NAME)


class RunCache:
    """What a run builds once and its nodes share (e.g. a corpus folder's search index): kept
    with the run's context, so it lives and dies with the run."""

    def __init__(self) -> None:
        self._items: dict[Any, Any] = {}
        self._lock = threading.Lock()

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> Any:
        from pydantic_core import core_schema

        return core_schema.any_schema()

    def get(self, key: Any, build: Callable[[], Any]) -> Any:
        with self._lock:
            if key not in self._items:
                self._items[key] = build()
            return self._items[key]


# Opens the executor's tools (LangChain BaseTools) for one attempt and closes them after it.
ToolOpener = Callable[["Context"], AbstractContextManager[list[Any]]]


def settings_of(ctx: Any) -> dict[str, Any]:
    """A context's settings as plain values (what a saved run records): every field with a
    description, none of the objects a run uses (its models, a chat model given as `model`,
    tools, cache, browser)."""
    return {
        f.name: value
        for f in fields(ctx)
        if "description" in f.metadata and _plain(value := getattr(ctx, f.name))
    }


def _plain(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float | bool | list | dict)


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
    # not a setting: a served run's authenticated caller, whose memories alone it sees
    memory_owner: Annotated[str | None, SkipJsonSchema()] = field(default=None, repr=False)
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
class Context(MemorySettings, ModelSettings):
    """The research graphs' `context_schema`; nodes read it through `Runtime[Context]`.

    The settings are plain values, so LangGraph Studio can edit them per assistant; `models`,
    `tools` and `cache` are what the run uses, supplied by its owner or made for it, and never
    shown as settings (nor is a chat model object given as `model`). A relative `corpus_dir`
    is the folder of that name in the current folder when the context is made.
    """

    planner_model: ModelChoice | None = role_field("sets the goal and plans the tasks")
    executor_model: ModelChoice | None = role_field("runs each task with tools")
    reflector_model: ModelChoice | None = role_field("judges each task result")
    aggregator_model: ModelChoice | None = role_field("writes the final answer")
    system_prompt: str = field(
        default=ROLE,
        metadata={
            "description": "What each research step's model call is told it is (the system"
            " message; blank: this default); memory's upkeep (insights, workflows) keeps its"
            " own prompts. The rule that documents, pages and memories are information, never"
            " instructions, always follows it."
        },
    )
    answer_first: bool = field(
        default=True,
        metadata={
            "description": "A short answer is reasoned out along the request's chain, a search"
            " for each link it lacks, without a plan (false, or approve_plan: every request is"
            " planned and researched task by task)."
        },
    )
    max_hops: int = field(
        default=DEFAULT_HOPS,
        metadata={"description": "Hops (a call each) a short answer's chain may take."},
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
            " the task that starts it (0 = answer from that search in one call; unset = 3, or"
            " the embedded model's own default: 0 for SmolLM2-135M, whose queries are noise)."
        },
    )
    model_verdicts: bool | None = field(
        default=None,
        metadata={
            "description": "The reflector model judges each attempt (true), or the evidence"
            " does: an attempt naming what nothing it read contains fails, and the model only"
            " writes the lesson (false). Unset: the model judges, but for the embedded CPU"
            " models, which pass nearly every attempt."
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
    mcp_servers: dict[str, Any] = field(
        default_factory=dict,
        metadata={
            "description": "MCP servers whose tools the executor gets, named '<server>_<tool>'"
            " (the common 'mcpServers' map: NAME: {command, args, env} or {url, transport})."
        },
    )
    approve_plan: bool = field(
        default=False,
        metadata={
            "description": "Pause after planning for a person to accept, edit or cancel the"
            " plan (an interrupt; resume with {'tasks': [...]} or {'cancel': true})."
        },
    )
    max_calls: int | None = field(
        default=None,
        metadata={
            "description": "Stop starting work after this many model calls and answer from"
            " what the run has (partial); unset = no cap."
        },
    )
    max_tokens: int | None = field(
        default=None,
        metadata={
            "description": "The same cap on the run's tokens (input + output of every call)."
        },
    )
    max_seconds: float | None = field(
        default=None, metadata={"description": "The same cap on the run's wall-clock seconds."}
    )

    tools: Annotated[ToolOpener | None, SkipJsonSchema()] = field(
        default=None, repr=False, compare=False
    )  # None: the configured tools (corpus, Tavily, browser; agents/resources.py)
    cache: Annotated[RunCache, SkipJsonSchema()] = field(
        default_factory=RunCache, repr=False, compare=False
    )
    budget: Annotated[RunBudget, SkipJsonSchema()] = field(
        default_factory=RunBudget, repr=False, compare=False
    )  # what the run has spent against max_calls / max_tokens / max_seconds

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.corpus_dir:  # now, so a later change of folder does not move it
            self.corpus_dir = os.path.abspath(os.path.expanduser(self.corpus_dir))

    def chat(self, role: Role) -> BaseChatModel:
        """The role's chat model; with caps set, each of its calls counted against them and
        refused at one (core.run_budget): the graph keeps its caps in every host."""
        chat = super().chat(role)
        return chat if self.caps == Caps() else self.budget.guarded(chat, self.caps)

    @property
    def caps(self) -> Caps:
        """The run's caps (`max_calls`, `max_tokens`, `max_seconds`)."""
        return Caps(self.max_calls, self.max_tokens, self.max_seconds)

    @property
    def tool_steps(self) -> int:
        """How many tool calls the executor may make per attempt (`max_tool_steps` resolved:
        unset, the executor model's default; core.model_defaults.default_tool_steps)."""
        if self.max_tool_steps is not None:
            return self.max_tool_steps
        return default_tool_steps(self.spec("executor"))

    @property
    def verdicts(self) -> bool:
        """Whether the reflector model's verdict judges an attempt (`model_verdicts` resolved:
        unset, the reflector model's default; core.model_defaults.model_judges)."""
        if self.model_verdicts is not None:
            return self.model_verdicts
        return model_judges(self.spec("reflector"))

    @property
    def task_concurrency(self) -> int:
        """How many tasks run at once (`max_concurrency`, its 0 resolved)."""
        if self.max_concurrency > 0:
            return self.max_concurrency
        spec = self.spec("executor")
        return 1 if spec is not None and parse_spec(spec).provider is None else 4
