"""Screenshots in the web agent's observation: with `observation` 'screenshot' or 'both' the
model's turn, the plan's included, carries the viewport's PNG as an image part; a model without
image input is refused before the run starts; 'axtree' (the default) sends text only."""

from __future__ import annotations

import asyncio
import base64
import uuid

import pytest

from agents.web import session as web_session
from agents.web.decide import build_messages
from agents.web.screenshot import ImagesUnsupported, accepts_images, check_observation
from core.model_errors import ModelSpecError
from core.web_context import WebAgentContext
from graphs.web import build_web_graph
from tests.unit.fakes import ScriptedChatModel
from tests.unit.web_fakes import PLAN, ScriptedModels, ShopEnv, answer

PNG = b"\x89PNG\r\n\x1a\n" + b"page pixels"


class ShotEnv(ShopEnv):
    """The scripted shop whose observations carry a screenshot, as BrowserEnv's do."""

    async def observe(self):
        observation = await super().observe()
        observation.screenshot = PNG + str(len(self.trajectory)).encode()
        return observation


def _images(messages) -> list[bytes]:
    parts = [p for m in messages if isinstance(m.content, list) for p in m.content]
    return [base64.b64decode(p["base64"]) for p in parts if p.get("type") == "image"]


def _run(observation: str, *, vision: bool = True):
    """The shop run: `seen` gets each decision's prompt and images, `planned` the plan's."""
    seen: list[tuple[str, list[bytes]]] = []
    planned: list[tuple[str, list[bytes]]] = []

    def responder(prompt, title, tools, messages):
        if title == "EpisodeJudgment":
            return {"reasons": ["ok"], "success": True}
        if title == PLAN:
            planned.append((prompt, _images(messages)))
            return {"steps": ["Click 'Buy'", "Stop"]}
        seen.append((prompt, _images(messages)))
        return answer("stop", text="done") if seen[1:] else answer("click", "7")

    models = ScriptedModels()
    models.model = ScriptedChatModel(responder=responder, calls=[])
    if vision:
        models.model.profile = {"image_inputs": True}
    ctx = WebAgentContext(
        online_induction="off", judge_runs=False, models=models, observation=observation
    )
    web_session.attach(ctx, ShotEnv())
    graph = build_web_graph().compile()
    state = {"task": "Buy the item", "run_id": uuid.uuid4().hex, "website": "shop"}
    out = asyncio.run(graph.ainvoke(state, context=ctx, config={"recursion_limit": 50}))
    return out, seen, planned


def test_each_turn_carries_the_screenshot_of_its_page():
    out, seen, planned = _run("both")
    assert out["done_reason"] == "stop"
    assert [images for _, images in seen] == [[PNG + b"0"], [PNG + b"1"]]  # the page it saw
    assert [images for _, images in planned] == [[PNG + b"0"]]  # planned on the first page
    assert "[7] button 'Buy'" in seen[0][0] and "[7] button 'Buy'" in planned[0][0]  # tree kept


def test_screenshot_alone_leaves_the_tree_out():
    _, seen, planned = _run("screenshot")
    for prompt, images in (seen[0], planned[0]):
        assert images == [PNG + b"0"]
        assert "[7] button" not in prompt and "attached screenshot" in prompt


def test_the_tree_alone_is_the_default_and_sends_no_image():
    assert WebAgentContext().observation == "axtree"
    _, seen, planned = _run("axtree", vision=False)
    assert all(images == [] for _, images in seen + planned) and planned


def test_a_model_without_image_input_is_refused_before_the_run():
    with pytest.raises(ImagesUnsupported, match="does not take images"):
        _run("both", vision=False)


def test_checks():
    model = ScriptedChatModel(responder=None, calls=[])
    assert not accepts_images(model)
    model.profile = {"image_inputs": True}
    assert accepts_images(model)
    with pytest.raises(ModelSpecError, match="choose one of axtree, screenshot, both"):
        check_observation(WebAgentContext(observation="video"))


def test_the_image_follows_the_escaped_text():
    messages = build_messages("t", "Tab 0: P\nURL: u\n[1] link '<x>'", [], {}, screenshot=PNG)
    text, image = messages[1].content
    assert "&lt;x&gt;" in text["text"] and "screenshot of the page" in text["text"]
    assert image == {
        "type": "image",
        "base64": base64.b64encode(PNG).decode(),
        "mime_type": "image/png",
    }
