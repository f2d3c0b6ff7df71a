"""`main.py judge THREAD_ID right|wrong`: a person's verdict on a finished run relabels it in
memory, and takes back (wrong) or adds (right) the workflows it teaches."""

from __future__ import annotations

import json

import main
from tests.unit.research_script import ShortScript, wire  # noqa: F401  (fixture)


def _main(capsys, home, *args: str, models=None, tools=None) -> tuple[int, str, str]:
    code = main.main(["--home", str(home), *args], models=models, tools=tools)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _run(wire, capsys, home, question: str) -> str:  # noqa: F811
    wire(ShortScript("Hawaii County, Hawaii", "Hawaii County"))  # the readings agree
    code, out, _ = _main(
        capsys,
        home,
        "run",
        question,
        "--json",
        "--no-browser",
        "--always-plan",  # plan-level workflows come from researched runs
        models=wire.models,
        tools=wire.tools,
    )
    assert code == 0, out
    return json.loads(out)["thread_id"]


def _plan_workflows(wire, home) -> dict[str, list[str]]:  # noqa: F811
    from memory.agent_memory import AgentMemory
    from memory.stores.project_store import open_memory_store

    with open_memory_store(str(home), "local", models=wire.models) as store:
        workflows = AgentMemory(store).workflows("research")
    return {w.name: w.provenance.sources for w in workflows if w.name.startswith("plan_")}


def test_a_run_judged_wrong_unteaches_and_the_next_of_its_form_teaches(wire, capsys, tmp_path):  # noqa: F811
    home = tmp_path / "home"
    first = _run(wire, capsys, home, "Who was Ada Lovelace?")
    second = _run(wire, capsys, home, "Who was Grace Hopper?")
    [(name, [taught_by])] = _plan_workflows(wire, home).items()  # one form, the first run's
    code, out, err = _main(capsys, home, "judge", first, "wrong", "--json", models=wire.models)
    assert code == 0, err
    said = json.loads(out)
    assert said["verdict"] == "wrong" and said["trajectory"] == taught_by
    assert said["forgotten"] == [name] and said["learned"] == [name]
    [(_, [now_by])] = _plan_workflows(wire, home).items()
    assert now_by != taught_by
    code, out, _ = _main(capsys, home, "judge", second, "wrong", models=wire.models)
    assert code == 0 and f"workflows taken back: {name}" in out
    assert _plan_workflows(wire, home) == {}
    code, out, _ = _main(capsys, home, "judge", first, "right", models=wire.models)
    assert code == 0 and f"workflows learned: {name}" in out
    assert list(_plan_workflows(wire, home).values()) == [[taught_by]]


def test_bad_thread_or_verdict_is_one_clear_line(wire, capsys, tmp_path):  # noqa: F811
    home = tmp_path / "home"
    code, _, err = _main(capsys, home, "judge", "nope", "wrong")
    assert code == 2 and "no run 'nope'" in err
    code, _, err = _main(capsys, home, "judge", "../x", "wrong")
    assert code == 2 and "invalid thread id" in err
    thread = _run(wire, capsys, home, "Who was Ada Lovelace?")
    code, _, err = _main(capsys, home, "judge", thread, "maybe")
    assert code == 2 and "invalid choice: 'maybe'" in err
    # a run that was started and never checkpointed an answer (killed at once)
    (home / "runs" / "cut").write_bytes((home / "runs" / f"{thread}.json").read_bytes())
    (home / "runs" / "cut").rename(home / "runs" / "cut.json")
    code, _, err = _main(capsys, home, "judge", "cut", "wrong")
    assert code == 2 and "run 'cut' has not finished: resume it" in err


def test_a_run_of_one_task_is_judged_by_its_attempt(wire, capsys, tmp_path):  # noqa: F811
    from agents.research.learning import WEBSITE
    from memory.agent_memory import AgentMemory
    from memory.stores.project_store import open_memory_store

    home = tmp_path / "home"
    script = ShortScript("Hawaii County, Hawaii", "Hawaii County")
    script.plan = []  # the request is the one task: no whole run is recorded apart from it
    wire(script)
    code, out, _ = _main(
        capsys,
        home,
        "run",
        "Who was Ada?",
        "--json",
        "--no-browser",
        "--always-plan",
        models=wire.models,
        tools=wire.tools,
    )
    thread = json.loads(out)["thread_id"]
    code, out, err = _main(capsys, home, "judge", thread, "wrong", "--json", models=wire.models)
    assert code == 0, err
    with open_memory_store(str(home), "local", models=wire.models) as store:
        run = AgentMemory(store).trajectory(WEBSITE, json.loads(out)["trajectory"])
    assert run is not None and run.task == "Who was Ada?" and run.judged_by == "person"
    assert not run.success
