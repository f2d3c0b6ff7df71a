"""The chat page people meet a LangGraph agent through: LangChain's Agent Chat UI (built by
scripts/chat-ui from npm's create-agent-chat-app, its packages pinned), served by vite, driven in
Debian's chromium against a real `langgraph dev` serving the project's graphs. A person types a
question and reads the answer with its sources (the page's text is the thread's answer, read back
through the SDK), asks a follow-up on the same thread, approves or cancels a plan from the page,
and reads why a run stopped at its cap or was refused; a page never ends on a spinner.

The embedded fast test model answers (the subject is the page and the server, not the answer;
CHAT_UI_MODEL=local runs the default model instead); CHAT_UI_SHOTS=FOLDER keeps a screenshot of
each state there (docs/chat-ui holds them)."""

from __future__ import annotations

import os
import re
import subprocess
import urllib.request
from pathlib import Path

import pytest

from browser.chromium import chromium_path
from core.model_catalogue import TEST_MODEL
from tests.conftest import ROOT
from tests.integration.langgraph_server import caller, dev_server, free_port
from tests.integration.processes import stop

pytestmark = pytest.mark.integration
MODEL = os.environ.get("CHAT_UI_MODEL", f"local:{TEST_MODEL}")  # "local": the default model
TOKEN = "alice-token-0123456789"
QUESTION = (  # the README's question
    'The creator of "Wallace and Gromit" also created what animation comedy that matched '
    "animated zoo animals with a soundtrack of people talking about their homes?"
)
RUN_S = 600_000  # ms a run may take on 2 busy cores
INPUT = 'textarea[placeholder="Type your message..."]'
AI = "div.group.mr-auto"
PROGRESS = "[data-testid=run-progress]"  # the line saying what the run is doing (our patch)


@pytest.fixture(scope="module")
def servers(tmp_path_factory):
    """(the page's URL, the agent server's URL)."""
    subprocess.run([str(ROOT / "scripts" / "chat-ui"), "build"], check=True, timeout=900)
    folder = tmp_path_factory.mktemp("chat")
    offer = (
        f'model = "{MODEL}"\ncorpus = "examples"\n[models]\n"{MODEL}" = "{MODEL}"\n'
        f'[corpora]\nexamples = "{ROOT / "examples" / "corpus"}"\n'
    )
    port = free_port()
    vite = ROOT / ".chat-ui" / "web" / "node_modules" / ".bin" / "vite"  # one process, no npx
    page = subprocess.Popen(
        [str(vite), "preview", "--host", "127.0.0.1", "--port", str(port), "--strictPort"],
        cwd=ROOT / ".chat-ui" / "web",
        stdout=subprocess.DEVNULL,
        stderr=subprocess.STDOUT,
    )
    try:
        with dev_server(folder, offer=offer, tokens={"alice": TOKEN}) as api:
            _wait_for(f"http://127.0.0.1:{port}/")
            yield f"http://127.0.0.1:{port}", api
    finally:
        stop(page)


def _wait_for(url: str) -> None:
    import time

    for _ in range(60):
        try:
            urllib.request.urlopen(url, timeout=2)
            return
        except OSError:
            time.sleep(1)
    raise RuntimeError(f"the page was not served at {url}")


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=chromium_path(), headless=True)
        yield chromium
        chromium.close()


def _open(browser, servers, assistant: str = "reflective_agent"):
    page_url, api = servers
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    fragment = f"token={TOKEN}&apiUrl={api}&assistantId={assistant}"
    page.goto(f"{page_url}/connect.html#{fragment}")
    page.wait_for_selector(INPUT)
    assert "token" not in page.url  # the token left the address
    return page


def _ask(page, text: str) -> None:
    page.fill(INPUT, text)
    page.keyboard.press("Enter")


def _settled(page, replies: int, told: list[str] | None = None) -> str:
    """Wait until the page shows `replies` AI messages and the run is over (Send is back),
    looking at what it streams meanwhile (never a structured call's JSON; each progress line
    it shows joins `told`); the last reply's text."""
    send = page.locator("form button[type=submit]:has-text('Send')")
    seen: list[str] = []
    told = [] if told is None else told
    for _ in range(RUN_S // 250):
        seen += [t.strip() for t in page.locator(f"{AI} .markdown-content").all_inner_texts()]
        told += [t for t in page.locator(PROGRESS).all_inner_texts() if t not in told]
        if send.count() and page.locator(AI).count() >= replies:
            break
        page.wait_for_timeout(250)
    assert not [t for t in seen if t.startswith("{")], "the page streamed a structured call"
    return page.locator(AI).nth(replies - 1).locator(".markdown-content").inner_text()


def _shot(page, name: str) -> None:
    folder = os.environ.get("CHAT_UI_SHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / f"{name}.png"), full_page=True)


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", text.casefold())


def _thread_answer(api: str) -> tuple[str, int]:
    """The newest thread's last message and its number of messages, read through the SDK."""
    client = caller(api, TOKEN)
    (thread,) = client.threads.search(limit=1, sort_by="updated_at", sort_order="desc")
    messages = client.threads.get_state(thread["thread_id"])["values"]["messages"]
    return messages[-1]["content"], len(messages)


def test_a_question_typed_in_the_page_is_answered_with_its_sources(browser, servers):
    """The page shows the run at work, node by node, then the thread's answer, sources
    included; a follow-up on the same thread gets its own answer below the first."""
    page = _open(browser, servers)
    _ask(page, QUESTION)
    page.wait_for_selector("form button:has-text('Cancel')", timeout=30_000)  # at work
    page.wait_for_selector(PROGRESS, timeout=60_000)
    _shot(page, "working")
    told: list[str] = []
    shown = _settled(page, 1, told)
    answer, count = _thread_answer(servers[1])
    assert count == 2 and _words(shown) == _words(answer)  # the page shows the thread's answer
    assert "Sources:" in shown
    assert told[0] == "Searching for the question and reading what comes back", told
    assert len(told) >= 2, told  # node by node, not a frozen page
    assert not page.locator(PROGRESS).count()  # gone with the run
    _shot(page, "answer")
    _ask(page, "Who created Wallace and Gromit?")
    followed = _settled(page, 2)
    answer, count = _thread_answer(servers[1])
    assert count == 4 and _words(followed) == _words(answer)
    assert page.locator("div.group.ml-auto").count() == 2  # both questions, one thread
    page.close()


def _assistant(api: str, **context) -> str:
    made = caller(api, TOKEN).assistants.create("reflective_agent", context=context)
    return made["assistant_id"]


def test_a_plan_is_approved_or_cancelled_from_the_page(browser, servers):
    """With plan approval, the page shows the plan with Accept, Edit and Ignore: Ignore ends
    the run with a message saying so; on a new question, Accept runs the plan to an answer."""
    planned = _assistant(servers[1], approve_plan=True, answer_first=False, max_retries=0)
    page = _open(browser, servers, planned)
    _ask(page, QUESTION)
    _plan_shown(page)
    _shot(page, "plan")
    page.get_by_role("button", name="Ignore").click()
    assert "The plan was cancelled" in _settled(page, 1)
    page.close()

    page = _open(browser, servers, planned)
    _ask(page, QUESTION)
    _plan_shown(page)
    page.get_by_role("button", name="Accept").click()
    shown = _settled(page, 1)
    answer, _ = _thread_answer(servers[1])
    assert answer and _words(shown) == _words(answer)
    page.close()


def _plan_shown(page) -> None:
    """The inbox view: the plan's tasks in an editable field, Accept and Ignore."""
    page.get_by_role("button", name="Ignore").wait_for(timeout=RUN_S)
    tasks = page.locator("textarea").filter(has_text="Gromit")
    assert tasks.count() == 1 and page.get_by_role("button", name="Accept").count() == 1


def test_a_cap_and_a_refused_run_say_why_in_the_page(browser, servers):
    """A run at its cap answers with why it has no answer; a run the server refuses (a model
    the operator does not offer) shows the server's reason, not a spinner."""
    capped = _assistant(servers[1], max_calls=1)
    page = _open(browser, servers, capped)
    _ask(page, QUESTION)
    assert "reached its max_calls cap" in _settled(page, 1)
    _shot(page, "cap")
    page.close()

    refused = _assistant(servers[1], model="local:no-such-model")
    page = _open(browser, servers, refused)
    _ask(page, QUESTION)
    toast = page.wait_for_selector("[data-sonner-toast][data-type=error]", timeout=RUN_S)
    assert "context setting 'model'" in toast.inner_text()
    page.wait_for_selector("form button[type=submit]:has-text('Send')", timeout=RUN_S)
    _shot(page, "refused")
    page.close()


def test_the_connect_page_hands_the_token_only_to_a_server_on_this_machine(browser, servers):
    page = browser.new_page()
    page.goto(f"{servers[0]}/connect.html#token=stolen-0123456789&apiUrl=http://example.org")
    page.wait_for_selector("text=Refused")
    assert page.evaluate("localStorage.getItem('lg:chat:apiKey')") in (None, TOKEN)
    assert "example.org" not in page.url.split("#")[0]
    page.close()


def _thread(api: str) -> dict:
    client = caller(api, TOKEN)
    (thread,) = client.threads.search(limit=1, sort_by="updated_at", sort_order="desc")
    return thread


def test_cancel_and_mark_as_resolved_say_so_in_the_page(browser, servers):
    """The page's Cancel button stops the run on the server (the SDK cancels a stream it
    leaves) and says so (our patch, chat_ui/page-says-so.patch); the inbox's Mark as
    Resolved (its goto to END would leave the run waiting; the patch answers the plan as
    ignored) ends the plan's run without running it, and the page says so."""
    page = _open(browser, servers)
    _ask(page, QUESTION)
    page.locator("form button:has-text('Cancel')").click(timeout=30_000)
    notice = page.wait_for_selector("[data-sonner-toast]", timeout=30_000)
    assert "stopped before it answered" in notice.inner_text()
    page.wait_for_selector("form button[type=submit]:has-text('Send')", timeout=30_000)
    _shot(page, "cancelled")
    client, thread = caller(servers[1], TOKEN), _thread(servers[1])
    for _ in range(60):  # the server ends the run it was streaming
        runs = client.runs.list(thread["thread_id"])
        if runs and runs[0]["status"] not in ("pending", "running"):
            break
        page.wait_for_timeout(500)
    assert runs[0]["status"] in ("interrupted", "error"), runs[0]["status"]
    page.close()

    planned = _assistant(servers[1], approve_plan=True, answer_first=False, max_retries=0)
    page = _open(browser, servers, planned)
    _ask(page, QUESTION)
    _plan_shown(page)
    page.get_by_role("button", name="Mark as Resolved").click()
    assert page.wait_for_selector("text=Marked thread as resolved", timeout=30_000)
    assert "The plan was cancelled" in _settled(page, 1)  # the run ends, the plan not run
    state = client.threads.get_state(_thread(servers[1])["thread_id"])
    assert not state["next"]  # nothing left waiting on the plan
    _shot(page, "resolved")
    page.close()
