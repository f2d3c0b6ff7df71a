"""Screenshots from real chromium: with `observation` 'screenshot' the web agent hands a
scripted image-taking model a PNG of the page each turn is on (told apart by its colour), the
plan's turn included, the same viewport `browse URL --screenshot FILE` writes; a model without
image input is refused before the browser opens."""

from __future__ import annotations

import asyncio
import base64
import functools
import subprocess
import sys
import threading
import uuid
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import pytest

from agents.web.screenshot import ImagesUnsupported
from core.web_context import WebAgentContext
from graphs.web import RECURSION_LIMIT, build_web_graph
from tests.conftest import ROOT
from tests.integration import png
from tests.unit.fakes import ScriptedChatModel
from tests.unit.web_fakes import ScriptedModels, answer

pytestmark = pytest.mark.integration
COLOURS = {"rose": (255, 0, 128), "teal": (0, 179, 161)}
PAGE = "<!doctype html><title>{0}</title><body style='background:rgb{1}'><h1>{0} page</h1>"


@pytest.fixture
def site(tmp_path):
    """One solid-coloured page per colour on a loopback port; `site.requests` counts hits."""
    for name, rgb in COLOURS.items():
        (tmp_path / f"{name}.html").write_text(PAGE.format(name, rgb), encoding="utf-8")
    requests: list[str] = []

    class Handler(SimpleHTTPRequestHandler):
        def log_message(self, *args) -> None:
            requests.append(self.path)

    handler = functools.partial(Handler, directory=str(tmp_path))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    yield type("Site", (), {"url": url, "requests": requests})
    server.shutdown()
    server.server_close()


def _images(messages) -> list[bytes]:
    parts = [p for m in messages if isinstance(m.content, list) for p in m.content]
    return [base64.b64decode(p["base64"]) for p in parts if p.get("type") == "image"]


def _run(site, tmp_path, seen: list[list[bytes]], *, vision: bool) -> dict:
    """A web agent run from rose.html: the model plans, goes to teal.html, then stops; `seen`
    gets the images of each turn the model is asked."""

    def responder(prompt, title, tools, messages):
        seen.append(_images(messages))
        if title == "WebPlan":
            return {"steps": ["Go to the teal page"]}
        if len(seen) == 2:
            return answer("goto", text=f"{site.url}/teal.html")
        return answer("stop", text="seen both")

    models = ScriptedModels()
    models.model = ScriptedChatModel(responder=responder, calls=[])
    if vision:
        models.model.profile = {"image_inputs": True}
    ctx = WebAgentContext(
        home=str(tmp_path / "home"),
        models=models,
        observation="screenshot",
        online_induction="off",
        judge_runs=False,
        max_steps=4,
    )
    state = {
        "task": "Look at both pages",
        "start_url": f"{site.url}/rose.html",
        "website": "colours",
        "run_id": uuid.uuid4().hex,
    }
    graph = build_web_graph().compile().with_config(recursion_limit=RECURSION_LIMIT)
    return asyncio.run(graph.ainvoke(state, context=ctx))


def test_the_model_gets_a_png_of_each_page_it_is_on(site, tmp_path):
    seen: list[list[bytes]] = []
    out = _run(site, tmp_path, seen, vision=True)
    assert out["done_reason"] == "stop", out
    assert [len(images) for images in seen] == [1, 1, 1]  # one image per turn: plan, go, stop
    (planned,), (rose,), (teal,) = seen
    assert planned == rose  # the plan is written from the page the first action sees
    for shot, name in ((rose, "rose"), (teal, "teal")):
        assert shot.startswith(png.SIGNATURE)
        assert png.size(shot) == (1280, 720)  # the environment's viewport
        assert png.pixel(shot, 4, 4) == COLOURS[name], name

    file = tmp_path / "browse.png"
    browse = [sys.executable, "main.py", "browse", f"{site.url}/rose.html", "--screenshot"]
    done = subprocess.run(
        [*browse, str(file), "--home", str(tmp_path / "home")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    shot = file.read_bytes()
    assert png.size(shot) == png.size(rose) and png.pixel(shot, 4, 4) == COLOURS["rose"]


def test_a_model_without_image_input_is_refused_before_the_browser_opens(site, tmp_path):
    seen: list[list[bytes]] = []
    with pytest.raises(ImagesUnsupported, match="does not take images") as refused:
        _run(site, tmp_path, seen, vision=False)
    assert "observation 'screenshot'" in str(refused.value)
    assert seen == [] and site.requests == []  # no model asked, no page loaded
