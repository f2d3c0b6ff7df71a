"""`main.py workflows …` end to end through main(), with a scripted model and hashing embeddings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage

import main
from core.models import Models
from memory.trajectories import Step, Trajectory, TrajectoryLog
from memory.workflows.files import WorkflowFiles
from tests.conftest import DATA

AWM = DATA / "awm"
ANSWER = """## enter_route
On the Delta booking page, this workflow enters the origin and destination.
[textbox]  Origin City or Airport -> TYPE: {origin}
[textbox]  Destination City or Airport -> TYPE: {destination}

## pick_trip_type
On the Delta booking page, this workflow makes the trip one-way.
[combobox]  Trip Type:, changes will reload the page -> CLICK
[option]  {trip-type} -> CLICK
"""


class Scripted:
    context_window = 100_000

    def get_num_tokens(self, text: str) -> int:
        return len(text.split())

    def invoke(self, prompt: object) -> AIMessage:
        return AIMessage(content=ANSWER)


@pytest.fixture()
def home(tmp_path: Path) -> Path:
    return tmp_path


def run(home: Path, *argv: str) -> int:
    models = Models.fixed(Scripted())  # type: ignore[arg-type]
    argv = (*argv, "--embedding-model", "hashing")  # one embedder per home: no model loads
    return main.main(["--home", str(home), "workflows", *argv], models=models)


def test_induce_offline_list_show_search_delete(home: Path, capsys: pytest.CaptureFixture) -> None:
    src = str(AWM / "mind2web_prompt_one_shot_action.txt")
    assert run(home, "induce", "--offline", src, "--model", "openai:gpt-4o", "--json") == 0
    assert json.loads(capsys.readouterr().out)["delta"]["kept"] == ["enter_route", "pick_trip_type"]
    assert run(home, "list", "--json") == 0
    listed = json.loads(capsys.readouterr().out)
    assert listed[0] == {
        "name": "enter_route",
        "website": "delta",
        "description": ANSWER.splitlines()[1],
        "steps": [
            "[textbox]  Origin City or Airport -> TYPE: {origin}",
            "[textbox]  Destination City or Airport -> TYPE: {destination}",
        ],
    }
    assert run(home, "show", "pick_trip_type") == 0
    assert "## pick_trip_type\nOn the Delta" in capsys.readouterr().out
    assert (
        run(
            home,
            "search",
            "one-way trip type",
            "--k",
            "1",
            "--embedding-model",
            "hashing",
            "--json",
        )
        == 0
    )
    assert [h["name"] for h in json.loads(capsys.readouterr().out)] == ["pick_trip_type"]
    assert run(home, "search", "x", "--mode", "random", "--k", "5", "--json") == 0
    assert len(json.loads(capsys.readouterr().out)) == 2
    assert run(home, "delete", "enter_route") == 0
    assert run(home, "show", "enter_route") == 1
    assert capsys.readouterr().err == "error: workflows show: no workflow named 'enter_route'\n"
    assert run(home, "delete", "enter_route", "--json") == 1
    assert json.loads(capsys.readouterr().out)["error"]["exit_code"] == 1


def test_induce_offline_json_file_and_bad_input(home: Path, tmp_path: Path, capsys) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"not": "a list"}')
    assert run(home, "induce", "--offline", str(bad)) == 2
    err = capsys.readouterr().err
    assert (
        err.startswith("error: workflows induce: ")
        and "expected a JSON list" in err
        and err.count("\n") == 1
    )


def test_induce_online_from_an_older_homes_files(home: Path, capsys) -> None:
    """A home from before the store held them keeps runs in HOME/trajectories/*.jsonl: the
    store imports them the first time it opens, and online induction learns from them."""
    run_ = Trajectory(
        task="Open my orders",
        website="shopping",
        success=True,
        steps=[Step("", "click('227')"), Step("", "click('1843')")],
    )
    TrajectoryLog(home).save("shopping", [run_])
    assert run(home, "induce", "--online", "--json") == 0
    assert json.loads(capsys.readouterr().out)["shopping"]["kept"] == ["open_my_orders"]
    assert run(home, "list") == 0
    assert capsys.readouterr().out.startswith("shopping/open_my_orders  (2 steps)")
    assert run(home, "delete", "open_my_orders") == 0
    capsys.readouterr()
    assert run(home, "list") == 0  # imported once: the old file does not bring it back
    assert capsys.readouterr().out == ""


def test_export_edit_and_import_carry_workflows_and_trust(home: Path, tmp_path: Path, capsys):
    src = str(AWM / "mind2web_prompt_one_shot_action.txt")
    assert run(home, "induce", "--offline", src, "--model", "openai:gpt-4o", "--trust") == 0
    booked = Trajectory(task="Book", website="delta", success=True, steps=[Step("", "x")])
    TrajectoryLog(tmp_path / "runs").save("delta", [booked])
    assert run(home, "import", str(tmp_path / "runs"), "--trust") == 0
    out = tmp_path / "out"
    capsys.readouterr()
    assert run(home, "export", str(out), "--json") == 0
    assert json.loads(capsys.readouterr().out)["workflows"] == 2
    text = (out / "workflows" / "delta.txt").read_text()
    assert text.startswith("## enter_route\nOn the Delta booking page")
    assert [t.task for t in TrajectoryLog(out).load("delta")] == ["Book"]
    (out / "workflows" / "delta.txt").write_text(text.replace("{origin}", "{from}"))  # by hand

    other = tmp_path / "other"
    assert run(other, "import", str(out)) == 0
    said = capsys.readouterr().out
    assert "imported 2 workflows (untrusted" in said and "left out 1 trajectories" in said
    assert run(other, "show", "enter_route", "--json") == 0
    (shown,) = json.loads(capsys.readouterr().out)
    assert shown["steps"][0].endswith("TYPE: {from}") and not shown["provenance"]["trusted"]
    assert run(other, "import", str(out), "--trust") == 0
    capsys.readouterr()
    assert run(other, "show", "enter_route", "--json") == 0
    assert json.loads(capsys.readouterr().out)[0]["provenance"]["trusted"]
    assert WorkflowFiles(other).files() == []  # the store holds them, not HOME/workflows
    assert run(other, "import", str(tmp_path / "nowhere")) == 2
    assert "no such folder" in capsys.readouterr().err
