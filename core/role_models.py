"""Which chat model each role of a graph uses: one `model` setting, a role's own when it has one.

    Context(model="openai:gpt-4o-mini")                  # a spec string, for every role
    Context(model=ChatOpenAI(model="gpt-4o-mini"))        # or a LangChain chat model object
    Context(model="local", executor_model="openai:gpt-4o-mini")   # one role its own

Nodes ask the context, never a field: `ctx.chat("planner")` is the planner's chat model (an
object as given, a string built once by the run's `models`), `ctx.spec("planner")` its spec
string (None for an object), which the spec-based defaults read (core.context).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic.json_schema import SkipJsonSchema

from core.models import Models

if TYPE_CHECKING:  # LangChain loads when a model is built, not when the CLI starts
    from langchain_core.language_models import BaseChatModel

    ModelChoice = str | BaseChatModel
else:  # an object is accepted but never shown as a setting: Studio edits the strings
    ModelChoice = str | SkipJsonSchema[Any]

DEFAULT_MODEL = "local"
Role = Literal["planner", "executor", "reflector", "aggregator"]
ROLES: tuple[Role, ...] = ("planner", "executor", "reflector", "aggregator")


def role_field(does: str) -> Any:
    """A role's own model: unset (None) means the context's `model`."""
    return field(
        default=None,
        metadata={"description": f"Model that {does}; unset: `model`."},
    )


@dataclass(kw_only=True)
class ModelSettings:
    """The `model` setting and the models a run builds from it; subclasses add `<role>_model`
    fields (role_field) that override it for one role."""

    model: ModelChoice = field(
        default=DEFAULT_MODEL,
        metadata={
            "description": "Model of every role: 'local' (embedded, offline), "
            "'provider:model' or 'provider:model@BASE_URL' (a LangChain chat model object "
            "works too); a role's own model field overrides it."
        },
    )
    models: Annotated[Models, SkipJsonSchema()] = field(
        default_factory=Models, repr=False, compare=False
    )  # not a setting: the models this run builds from specs, supplied by its owner or its own

    def __post_init__(self) -> None:
        if self.model is None or self.model == "":
            raise TypeError("model is unset: give a model spec or a LangChain chat model")
        names = {f.name for f in fields(self)}
        for name in ["model", *(f"{role}_model" for role in ROLES)]:
            if name in names:
                _check_choice(name, getattr(self, name))

    def model_for(self, role: Role) -> ModelChoice:
        """The role's model as set: its own field when set, else `model`."""
        own = getattr(self, f"{role}_model")
        return self.model if own is None or own == "" else own

    def chat(self, role: Role) -> BaseChatModel:
        """The role's chat model: the object given, or the one its spec names (built once)."""
        chosen = self.model_for(role)
        return self.models.chat(chosen) if isinstance(chosen, str) else chosen

    def spec(self, role: Role) -> str | None:
        """The role's spec string; None when the role was given a model object."""
        chosen = self.model_for(role)
        return chosen if isinstance(chosen, str) else None

    def model_name(self, role: Role) -> str:
        """How a message names the role's model: its spec, or the object's class and name."""
        chosen = self.model_for(role)
        if isinstance(chosen, str):
            return chosen
        name = getattr(chosen, "model_name", None) or getattr(chosen, "model", None)
        kind = type(chosen).__name__
        return f"{kind}({name})" if isinstance(name, str) else kind


def _check_choice(name: str, value: Any) -> None:
    """A model setting is a spec string or a chat model (something with `invoke`)."""
    if value is None or isinstance(value, str) or callable(getattr(value, "invoke", None)):
        return
    raise TypeError(
        f"{name} must be a model spec such as 'openai:gpt-4o-mini' or a LangChain chat "
        f"model, not {type(value).__name__}"
    )
