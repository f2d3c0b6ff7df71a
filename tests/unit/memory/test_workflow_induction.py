"""Offline and online induction with scripted fake models: prompt, parse, filters, saving."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage
from langchain_core.runnables import RunnableLambda
from langgraph.store.memory import InMemoryStore

from memory.agent_memory import AgentMemory
from memory.exchange import export_memory
from memory.trajectories import Step, Trajectory
from memory.workflows.induction import WorkflowDraft, WorkflowDrafts
from memory.workflows.offline import (
    Example,
    format_examples,
    group_examples,
    induce_offline,
    load_examples,
    mind2web_prompt_examples,
)
from memory.workflows.online import OnlineInduction, induce_online
from tests.conftest import DATA

AWM = DATA / "awm"


@pytest.fixture()
def mem() -> AgentMemory:
    return AgentMemory(InMemoryStore())


ANSWER = """\
## enter_route
On the booking page, this workflow enters origin and destination.
[textbox]  Origin City or Airport -> TYPE: {origin}
[textbox]  Destination City or Airport -> TYPE: {destination}

## search_catalog_item
Leaked from the worked example.
[searchbox]  Search the catalog -> TYPE: {title}
[button]  Go -> CLICK

## one_step
Too short.
[button]  SUBMIT -> CLICK

## enter_route
Same name again.
[link]  a -> CLICK
[link]  b -> CLICK

## copy_of_route
Same steps under another name.
[textbox]  Origin City or Airport -> TYPE: {origin}
[textbox]  Destination City or Airport -> TYPE: {destination}

## prose
Steps that are not actions.
First do this
Then do that

## no_description
[button]  SUBMIT -> CLICK
[button]  done -> CLICK
"""


class TextModel:
    """Answers every prompt with ANSWER and remembers the prompts."""

    def __init__(self, answer: str = ANSWER, window: int = 100_000) -> None:
        self.answer, self.prompts, self.context_window = answer, [], window

    def get_num_tokens(self, text: str) -> int:
        return len(text.split())

    def invoke(self, prompt: Any) -> AIMessage:
        self.prompts.append(str(prompt))
        return AIMessage(content=self.answer)


class StructuredModel(TextModel):
    def with_structured_output(self, schema: type) -> Any:
        assert issubclass(schema, WorkflowDrafts)
        drafts = WorkflowDrafts(
            workflows=[
                WorkflowDraft(
                    name="pick_trip_type",
                    description="Sets one-way.",
                    steps=["[combobox]  Trip Type -> CLICK", "[option]  {trip-type} -> CLICK"],
                ),
                WorkflowDraft(name="junk", description="Not actions.", steps=["hello", "world"]),
            ]
        )
        return RunnableLambda(lambda p: (self.prompts.append(str(p)), drafts)[1])


@pytest.fixture()
def delta_examples() -> list[Example]:
    data = mind2web_prompt_examples((AWM / "mind2web_prompt_one_shot_action.txt").read_text())
    return [Example.model_validate(d) for d in data]


def test_mind2web_loader_reads_the_real_examples(
    delta_examples: list[Example], tmp_path: Path
) -> None:
    assert len(delta_examples) == 4
    assert {(e.domain, e.subdomain, e.website) for e in delta_examples} == {
        ("Travel", "Airlines", "delta")
    }
    assert delta_examples[1].actions[0] == "[tab]  MY TRIPS -> CLICK"
    assert [len(e.actions) for e in delta_examples] == [14, 7, 11, 15]
    path = tmp_path / "ex.json"
    path.write_text(json.dumps([e.model_dump() for e in delta_examples]))
    assert load_examples(path) == delta_examples
    text = format_examples(delta_examples)
    assert text.startswith("## Query 1: Find flights from Seattle")
    assert "\n\n## Query 2: Find my trip" in text and "Actions:\n[tab]  MY TRIPS -> CLICK" in text


def test_load_examples_names_the_bad_example(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    good = {
        "domain": "d",
        "subdomain": "s",
        "website": "w",
        "task": "t",
        "actions": ["[a]  b -> CLICK"],
    }
    path.write_text(json.dumps([good, {**good, "actions": ["click the button"]}]))
    with pytest.raises(ValueError, match=r"example 1: .*not a Mind2Web line"):
        load_examples(path)


def test_grouping_is_domain_subdomain_website() -> None:
    mk = lambda d, s, w: Example(domain=d, subdomain=s, website=w, task="t", actions=[])  # noqa: E731
    tree = group_examples(
        [
            mk("Travel", "Airlines", "delta"),
            mk("Travel", "Airlines", "united"),
            mk("Shopping", "General", "amazon"),
            mk("Travel", "Airlines", "delta"),
        ]
    )
    assert {
        k: {s: {w: len(v) for w, v in ws.items()} for s, ws in ss.items()} for k, ss in tree.items()
    } == {"Travel": {"Airlines": {"delta": 2, "united": 1}}, "Shopping": {"General": {"amazon": 1}}}


def test_offline_text_mode_filters_and_saves(
    delta_examples: list[Example], mem: AgentMemory
) -> None:
    model = TextModel()
    report = induce_offline(delta_examples, model=model, memory=mem, spec="openai:gpt-4o")
    prompt = model.prompts[0]
    assert "northvale-library" in prompt and "Website: Travel, Airlines, delta" in prompt
    assert "## Query 4: Check all available one way flights" in prompt
    result = report.per_website["delta"]
    assert [w.name for w in result.kept] == ["enter_route"]
    reasons = " | ".join(result.dropped)
    for why in (
        "copied from the worked example",
        "fewer than two steps",
        "duplicate",
        "a step is not an action",
        "lacks a one-line description",
    ):
        assert why in reasons
    saved = mem.workflows("delta")
    assert [w.name for w in saved] == ["enter_route"] and saved[0].provenance.origin == "offline"
    assert mem.workflow_updates()[-1]["kept"] == ["enter_route"]
    again = induce_offline(delta_examples, model=model, memory=mem, spec="openai:gpt-4o")
    assert again.per_website["delta"].kept == []  # already in memory: a duplicate


def test_offline_structured_mode_for_local(
    delta_examples: list[Example], tmp_path: Path, mem: AgentMemory
) -> None:
    report = induce_offline(delta_examples, model=StructuredModel(), memory=mem, spec="local")
    assert [w.name for w in report.per_website["delta"].kept] == ["pick_trip_type"]
    export_memory(mem, tmp_path)  # as a person reads it
    assert (
        (tmp_path / "workflows" / "delta.txt")
        .read_text()
        .startswith("## pick_trip_type\nSets one-way.\n[combobox]  Trip Type -> CLICK\n")
    )


def test_prompt_holds_only_what_fits(delta_examples: list[Example], mem: AgentMemory) -> None:
    model = TextModel(window=1300)  # room for the instructions and about two examples
    result = induce_offline(delta_examples, model=model, memory=mem, spec="x:y").per_website[
        "delta"
    ]
    assert 0 < result.examples_used < 4 and result.examples_total == 4
    assert model.get_num_tokens(model.prompts[0]) <= 1300 - 768


def test_unknown_website_is_an_error(delta_examples: list[Example], mem: AgentMemory) -> None:
    with pytest.raises(ValueError, match="no examples for website 'nope'"):
        induce_offline(delta_examples, model=TextModel(), memory=mem, website="nope")


def _run(task: str, tid: str | None, actions: list[str], ok: bool = True) -> Trajectory:
    return Trajectory(
        task=task,
        website="shopping",
        template_id=tid,
        success=ok,
        steps=[Step("seen", a) for a in actions],
    )


def test_online_rule_mode_after_each_run(mem: AgentMemory) -> None:
    online = OnlineInduction(mem, mode="rule", every=1)
    assert online.after_run(_run("Fail", "1", ["click('1')", "click('2')"], ok=False)) is None
    r = online.after_run(
        _run(
            "Find my first order date",
            "1",
            ["click('227')", "click('1843')", "send_msg_to_user('3/2/22')"],
        )
    )
    assert [w.name for w in r["shopping"].kept] == ["find_my_first_order_date"]
    # same template: de-duplicated away; same abstract route with another template: also
    online.after_run(
        _run(
            "Find my last order date",
            "1",
            ["click('227')", "click('1843')", "send_msg_to_user('5/2/23')"],
        )
    )
    online.after_run(
        _run(
            "Latest order number",
            "2",
            ["click('227')", "click('1843')", "send_msg_to_user('000170')"],
        )
    )
    online.after_run(_run("Browse shelves", "3", ["hover('735')", "click('797')"]))
    names = [w.name for w in mem.workflows("shopping")]
    assert names == ["find_my_first_order_date", "browse_shelves"]
    log = mem.workflow_updates()
    assert len(log) == 4 and log[-1]["mode"] == "online-rule" and log[-1]["after_dedup"] == 2


def test_online_every_n_and_llm_mode(mem: AgentMemory) -> None:
    answer = "## open_orders\nFrom any page, opens the order list.\nclick('227')\nclick('1843')\n"
    model = TextModel(answer)
    online = OnlineInduction(mem, mode="llm", every=2, model=model, spec="openai:gpt-4o")
    assert online.after_run(_run("A", "1", ["click('227')", "click('1843')"])) is None
    result = online.after_run(_run("B", "2", ["click('227')", "click('5')"]))
    assert [w.name for w in result["shopping"].kept] == ["open_orders"]
    assert "## Query 2: B\nActions:\nclick('227')\nclick('5')" in model.prompts[0]
    assert mem.workflows(None)[0].provenance.origin == "online-llm"
    with pytest.raises(ValueError, match="needs a model"):
        induce_online(mem, mode="llm")


def test_mind2web_schema_only_admits_action_lines() -> None:
    from pydantic import ValidationError

    from memory.workflows.induction import Mind2WebDrafts

    ok = {
        "name": "pick_trip",
        "description": "d",
        "steps": ["[combobox]  Trip Type -> CLICK", "[textbox]  Origin -> TYPE: {city}"],
    }
    assert Mind2WebDrafts.model_validate({"workflows": [ok]}).workflows[0].name == "pick_trip"
    for bad in ({**ok, "steps": ["click it", "[a]  b -> CLICK"]}, {**ok, "name": "Bad Name"}):
        with pytest.raises(ValidationError):
            Mind2WebDrafts.model_validate({"workflows": [bad]})
