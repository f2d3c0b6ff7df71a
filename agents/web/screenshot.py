"""Screenshots in the web agent's observation (MMInA-style multimodal input).

`WebAgentContext.observation` chooses what plan and decide show the model: "axtree" (the
default, the accessibility tree as text), "screenshot" (a PNG of the viewport, the tree left out
of the prompt; actions still name the tree's ids) or "both". The PNG goes to the model as an
image content part of the turn's message, so only a model that accepts images may use it: the
run's first observation checks that, before any browser opens, and fails with one clear error.
"""

from __future__ import annotations

import base64
from typing import Any

from langchain_core.messages import HumanMessage

from agents.web import session as web_session
from core.model_errors import ModelSpecError
from core.state import WebAgentState
from core.web_context import OBSERVATIONS, WebAgentContext
from prompts.web import SCREENSHOT_NOTE, TREE_IN_SCREENSHOT


class ImagesUnsupported(ModelSpecError):
    """The observation asks for screenshots, but the model does not take images (exit 2)."""


def wants_screenshot(ctx: WebAgentContext) -> bool:
    return ctx.observation != "axtree"


def wants_tree(ctx: WebAgentContext) -> bool:
    return ctx.observation != "screenshot"


def accepts_images(model: Any) -> bool:
    """Does the chat model take image input? Its LangChain profile says so (`image_inputs`);
    a model without a profile is taken not to."""
    profile = getattr(model, "profile", None) or {}
    return bool(profile.get("image_inputs"))


def check_observation(ctx: WebAgentContext) -> None:
    """Before a run: an unknown observation mode, or screenshots for a model without image
    input, is one error that says what to change."""
    if ctx.observation not in OBSERVATIONS:
        raise ModelSpecError(
            f"observation {ctx.observation!r}: choose one of {', '.join(OBSERVATIONS)}"
        )
    if not wants_screenshot(ctx):
        return
    model = ctx.chat("executor")
    if not accepts_images(model):
        raise ImagesUnsupported(
            f"observation {ctx.observation!r} sends screenshots, but the executor model "
            f"{ctx.model_name('executor')!r} does not take images (its profile declares no image "
            "input): use observation 'axtree' or a vision model, e.g. openai:gpt-4o-mini"
        )


async def viewport_png(env: Any) -> bytes:
    """The PNG of the page the last observation saw: the observation's own screenshot when
    the environment takes them, else one taken now (nothing has acted since)."""
    last = env.last_observation
    if last is not None and last.screenshot:
        return bytes(last.screenshot)
    return bytes(await env.page.screenshot(type="png"))


def image_part(png: bytes) -> dict[str, Any]:
    """A PNG as a LangChain image content block (providers convert it to their own form)."""
    return {"type": "image", "base64": base64.b64encode(png).decode(), "mime_type": "image/png"}


async def turn_png(ctx: WebAgentContext, state: WebAgentState) -> bytes | None:
    """The viewport's PNG for this turn's prompt, when the observation includes one."""
    if not wants_screenshot(ctx):
        return None
    session = web_session.session_of(ctx, state.get("run_id") or "")
    return await viewport_png(session.env) if session is not None else None


def page_text(observation: str, show_tree: bool) -> str:
    """The observation as the prompt shows it: whole, or without `show_tree` its tabs and URL
    lines with the tree replaced by a pointer to the image."""
    if show_tree:
        return observation
    return "\n".join([*observation.split("\n")[:2], TREE_IN_SCREENSHOT])


def turn_message(body: str, png: bytes | None) -> HumanMessage:
    """The turn's message: its text, and the screenshot after it when there is one."""
    if png is None:
        return HumanMessage(body)
    return HumanMessage([{"type": "text", "text": f"{body}\n\n{SCREENSHOT_NOTE}"}, image_part(png)])
