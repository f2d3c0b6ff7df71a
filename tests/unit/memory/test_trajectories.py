"""Trajectories: JSONL log, abstract actions, de-duplication on real WebArena and AWM data."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from evals.awm.trajectory_data import parse_webarena_examples, webarena_config_trajectory
from memory.trajectories import (
    Step,
    Trajectory,
    TrajectoryLog,
    abstract_action,
    abstract_trajectory,
    action_from_tool_call,
    dedup_by_abstract,
    dedup_by_template,
    deduplicate,
)
from tests.conftest import DATA


@pytest.fixture(scope="module")
def configs() -> list[dict]:
    return json.loads((DATA / "webarena" / "test.raw.json").read_text())


def test_abstract_action_keeps_type_and_first_argument() -> None:
    assert abstract_action("fill('456', 'hello')") == "fill('456')"
    assert abstract_action("click('227')") == "click('227')"
    assert (
        abstract_action("send_msg_to_user('The earliest purchase date is 3/2/22.')")
        == "send_msg_to_user(_)"
    )
    assert abstract_action("send_msg_to_user('0')") == "send_msg_to_user(_)"
    assert (
        abstract_action("[textbox]  Origin City -> TYPE: Seattle") == "TYPE [textbox] Origin City"
    )
    assert (
        abstract_action(action_from_tool_call("web_search", {"query": "capital of France"}))
        == "web_search(_)"
    )
    assert abstract_action("goto('http://x/a-long-path')") == "goto('http://x/a-long-path')"
    assert abstract_action("type('q', 'a b')") == "type('q')"
    assert abstract_action("scroll(") == "scroll(?)"


def test_template_dedup_on_real_webarena_configs(configs: list[dict]) -> None:
    trajs = [webarena_config_trajectory(c) for c in configs]
    kept = dedup_by_template(trajs)
    assert len(trajs) == 812
    assert len(kept) == len({c["intent_template_id"] for c in configs}) == 190
    assert len({t.template_id for t in kept}) == 190
    # the first task of each template is the one kept
    first = {}
    for c in configs:
        first.setdefault(str(c["intent_template_id"]), c["task_id"])
    assert {t.id for t in kept} == {f"webarena-{i}" for i in first.values()}


def test_abstract_dedup_on_real_webarena_configs(configs: list[dict]) -> None:
    trajs = [webarena_config_trajectory(c) for c in configs]
    unique = dedup_by_abstract(trajs)
    # answers are values and removed, so what remains is (site, start page): one per pair
    pairs = {((c["sites"] or ["general"])[0], c["start_url"]) for c in configs}
    assert len(unique) == len(pairs)
    assert 1 < len(unique) < 190
    both = deduplicate(trajs)  # template first (190 left), then abstract trajectory
    firsts = dedup_by_template(trajs)
    assert len(both) == len({(t.website, abstract_trajectory(t)) for t in firsts}) == 18
    assert Counter(t.website for t in both)["shopping"] >= 1


def test_webarena_one_shot_trajectories() -> None:
    text = (DATA / "awm" / "webarena_prompt_one_shot.txt").read_text()
    trajs = parse_webarena_examples(text)
    assert [len(t.steps) for t in trajs] == [5, 4, 3]
    assert trajs[0].steps[0].action == "click('227')"
    assert trajs[0].steps[0].observation.startswith("To find the date of the first purchase")
    assert abstract_trajectory(trajs[2]) == "click('227')_click('1843')_send_msg_to_user(_)"
    # the same route with another answer is a duplicate; a different route is not
    again = Trajectory(
        task="Get my latest order number",
        website="shopping",
        success=True,
        steps=[
            Step("", "click('227')"),
            Step("", "click('1843')"),
            Step("", "send_msg_to_user('000000171')"),
        ],
    )
    unique = dedup_by_abstract([*trajs, again])
    assert [t.task for t in unique] == [t.task for t in trajs]


def test_log_records_and_loads(tmp_path: Path) -> None:
    log = TrajectoryLog(tmp_path)
    ok = Trajectory(
        task="t", website="Shopping Admin", steps=[Step("o", "click('1')")], success=True
    )
    bad = Trajectory(task="u", website="Shopping Admin", steps=[], success=False, template_id="7")
    log.save("Shopping Admin", [ok, bad])
    assert (tmp_path / "trajectories" / "shopping_admin.jsonl").exists()
    assert [t.task for t in log.load()] == ["t"]
    assert [t.template_id for t in log.load("shopping_admin", successful_only=False)] == [None, "7"]
    (tmp_path / "trajectories" / "broken.jsonl").write_text("{not json\n")
    with pytest.raises(ValueError, match="broken.jsonl:1"):
        log.load()


def test_webarena_bracket_actions_and_converters() -> None:
    from memory.trajectories import trajectory_from_tool_steps, trajectory_from_web_steps
    from memory.workflows.format import looks_like_action

    assert abstract_action("type [12] [red shoes] [1]") == "type [12]"
    assert abstract_action("stop [The answer is 5]") == "stop [_]"
    assert abstract_action("click [42]  # button 'Submit'") == "click [42]"
    assert abstract_action("go_back") == "go_back"
    assert looks_like_action("click [42]  # button 'Submit'") and looks_like_action("go_back")
    assert not looks_like_action("Click the submit button")
    tool = trajectory_from_tool_steps(
        "capital of France",
        [
            {
                "tool": "web_search",
                "args": {"query": "capital of France"},
                "observation": "Paris is...",
            }
        ],
        website="general",
        success=True,
    )
    assert tool.steps[0].action == "web_search('capital of France')"
    assert abstract_trajectory(tool) == "web_search(_)"
    web = trajectory_from_web_steps(
        "buy",
        [
            {
                "index": 0,
                "observation": "tree",
                "url": "u",
                "raw": "r",
                "action": "click [3]",
                "valid": True,
                "target": "link 'Orders'",
            },
            {
                "index": 1,
                "observation": "tree",
                "url": "u",
                "raw": "??",
                "action": None,
                "valid": False,
            },
        ],
        website="shopping",
        success=True,
    )
    assert [s.action for s in web.steps] == ["click [3]  # link 'Orders'"]


def test_an_older_files_replayed_and_forgotten_lines_read_as_the_store_held_them(tmp_path):
    """Files from before the store: an id recorded twice is its last line, and a `deleted`
    line removes its id (until it is recorded again)."""
    log = TrajectoryLog(tmp_path)
    kept = Trajectory(task="a", website="shop", steps=[], success=True, id="kept")
    cut = Trajectory(task="b", website="shop", steps=[], success=True, id="cut")
    path = tmp_path / "trajectories" / "shop.jsonl"
    path.parent.mkdir()
    lines = [kept.to_dict(), cut.to_dict(), {"id": "cut", "deleted": True}]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert [t.id for t in log.load("shop")] == ["kept"]
    path.write_text(path.read_text() + json.dumps(cut.to_dict()) + "\n")  # back again
    assert [t.id for t in log.load("shop")] == ["kept", "cut"]
