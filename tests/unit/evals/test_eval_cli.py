"""`eval webarena` and `eval hotpotqa` from the command line: tables, JSON, reports, bad input."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

import evals.cli as eval_cli
from evals.hotpotqa import agent as hotpotqa_agent
from evals.hotpotqa.dataset import load_hotpotqa
from tests.conftest import DATA
from tests.unit.evals.eval_command import run_cli

TEST_RAW = DATA / "webarena" / "test.raw.json"
DEV60 = DATA / "hotpotqa" / "distractor_dev60.json"

# Real task ids with hand-checked outcomes.
PREDICTIONS = {
    "0": {"answer": "Quest Lumaflex™ Band"},  # exact_match: 1
    "1": {"answer": "Nike"},  # exact_match (Sprite): 0
    "28": {"answer": "There are 0 such comments."},  # must_include ["0"]: 1
    "12": {"answer": "12"},  # must_include ["2"] tokenized: 0
    "45": {"url": "__GITLAB__/a11yproject/a11yproject.com/-/issues/?state=opened&sort=created_asc"},
    "604": {"url": "__REDDIT__/f/MachineLearning"},  # url + program_html: skipped
    "173": {"answer": "No, it is open", "url": "__GITLAB__/byteblaze/empathy-prompts/-/issues/8"},
}


@pytest.fixture
def pred_file(tmp_path) -> Path:
    path = tmp_path / "pred.json"
    path.write_text(json.dumps(PREDICTIONS), encoding="utf-8")
    return path


def test_webarena_json_scores_and_mean(pred_file, tmp_path, capsys):
    home = tmp_path / "home"
    argv = [
        "eval",
        "webarena",
        "--config",
        str(TEST_RAW),
        "--predictions",
        str(pred_file),
        "--json",
    ]
    assert run_cli(argv, home) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["scores"] == {
        "0": 1.0,
        "1": 0.0,
        "12": 0.0,
        "28": 1.0,
        "45": 1.0,
        "173": None,
        "604": None,
    }
    assert out["mean"] == pytest.approx(3 / 5)
    (report,) = (home / "reports").glob("webarena-*.json")
    body = json.loads(report.read_text(encoding="utf-8"))
    assert body["mean"] == pytest.approx(0.6) and body["tasks_scored"] == 5
    by_type = {c["eval_type"]: c for c in body["eval_types"]}
    # Counts are per evaluator: 604 and 173 still had their URL scored.
    assert by_type["program_html"]["skipped"] == 1 and by_type["url_match"]["scored"] == 3
    assert by_type["string_match"]["skipped"] == 1  # 173 needs a judge


def test_webarena_table_lists_counts_reasons_and_mean(pred_file, tmp_path, capsys):
    argv = ["eval", "webarena", "--config", str(TEST_RAW), "--predictions", str(pred_file)]
    assert run_cli(argv, tmp_path / "home") == 0
    out = capsys.readouterr().out
    assert "program_html" in out and "needs a live page" in out and "needs an LLM judge" in out
    assert "tasks scored: 5/7" in out and "mean score: 0.600" in out and "report:" in out


def test_webarena_site_map_substitutes_placeholders(tmp_path, capsys):
    pred = tmp_path / "p.json"
    pred.write_text(json.dumps({"44": {"url": "http://127.0.0.1:8023/dashboard/todos"}}))
    argv = [
        "eval",
        "webarena",
        "--config",
        str(TEST_RAW),
        "--predictions",
        str(pred),
        "--json",
        "--site",
        "GITLAB=http://127.0.0.1:8023",
    ]
    assert run_cli(argv, tmp_path / "home") == 0
    assert json.loads(capsys.readouterr().out) == {"scores": {"44": 1.0}, "mean": 1.0}


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"99999": {"answer": "x"}}', "not in"),
        ('{"0": {"answer": 3}}', "expected"),
        ("[not json", "not valid JSON"),
        ("{}", "no predictions"),
    ],
)
def test_webarena_bad_predictions_one_line_error(tmp_path, capsys, content, message):
    pred = tmp_path / "p.json"
    pred.write_text(content)
    argv = ["eval", "webarena", "--config", str(TEST_RAW), "--predictions", str(pred)]
    assert run_cli(argv, tmp_path / "home") == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err and err.count("\n") == 1


def test_webarena_missing_config_and_bad_model(pred_file, tmp_path, capsys):
    argv = [
        "eval",
        "webarena",
        "--config",
        str(tmp_path / "none.json"),
        "--predictions",
        str(pred_file),
    ]
    assert run_cli(argv, tmp_path / "home") == 2
    assert "does not exist" in capsys.readouterr().err
    argv = [
        "eval",
        "webarena",
        "--config",
        str(TEST_RAW),
        "--predictions",
        str(pred_file),
        "--model",
        "nonsense",
    ]
    assert run_cli(argv, tmp_path / "home") == 2
    assert capsys.readouterr().err.startswith("error: unknown model")


def _connect_runner(monkeypatch, built):
    gold = {q.question: q.answer for q in load_hotpotqa(DEV60, limit=3)}

    def fake_runner(*, model, max_retries, home, graph, reflections, callbacks, max_tool_steps):
        built.setdefault("homes", []).append(home)
        built.update(
            model=model,
            max_retries=max_retries,
            graph=graph,
            reflections=reflections,
            max_tool_steps=max_tool_steps,
        )

        def answer_fn(question, paragraphs):
            assert len(paragraphs) == 10
            for callback in callbacks:  # two model calls per question
                callback.on_chat_model_start({}, [])
                callback.on_chat_model_start({}, [])
            return (gold[question] if question != list(gold)[2] else "wrong"), []

        return answer_fn

    monkeypatch.setattr(hotpotqa_agent, "default_runner", fake_runner)


def _hotpot_argv(out_dir, *extra):
    common = ["--limit", "3", "--model", "fake:m", "--max-retries", "1", "--graph", "single-path"]
    return ["eval", "hotpotqa", "--file", str(DEV60), *common, "--out", str(out_dir), *extra]


def test_hotpotqa_with_a_connected_runner(tmp_path, capsys, monkeypatch):
    built = {}
    _connect_runner(monkeypatch, built)
    assert run_cli(_hotpot_argv(tmp_path / "out", "--json"), tmp_path / "h") == 0
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    homes = built.pop("homes")  # --memory fresh (the default): a memory folder per question
    assert len(set(homes)) == 3 and all("fresh" in h for h in homes)
    assert built == {
        "model": "fake:m",
        "max_retries": 1,
        "graph": "single-path",
        "reflections": True,
        "max_tool_steps": 3,
    }
    assert out["questions"] == 3 and out["correct"] == 2 and out["trials"] == 1
    assert out["calls"] == 6 and out["graph"] == "single-path"
    assert "[hotpotqa single-path] 3/3 score 0.667 (2/3)" in captured.err
    lines = (tmp_path / "out" / "results.jsonl").read_text().splitlines()
    assert len(lines) == 3 and json.loads(lines[2])["answer"] == "wrong"


def test_hotpotqa_tool_steps_reach_the_graph_and_name_the_results(tmp_path, capsys, monkeypatch):
    built = {}
    _connect_runner(monkeypatch, built)
    argv = _hotpot_argv(tmp_path / "out", "--json", "--max-tool-steps", "0")
    assert run_cli(argv, tmp_path / "h") == 0 and built["max_tool_steps"] == 0
    capsys.readouterr()
    # the same --out with other tool steps is another experiment: refused, nothing lost
    argv = _hotpot_argv(tmp_path / "out", "--json", "--max-tool-steps", "2")
    assert run_cli(argv, tmp_path / "h") == 2
    assert "max_tool_steps" in capsys.readouterr().err
    assert len((tmp_path / "out" / "results.jsonl").read_text().splitlines()) == 3


@pytest.mark.parametrize("mode, reflections", [("carry", True), ("off", False)])
def test_hotpotqa_memory_carry_shares_one_home_and_off_has_none(
    mode, reflections, tmp_path, capsys, monkeypatch
):
    built = {}
    _connect_runner(monkeypatch, built)
    assert run_cli(_hotpot_argv(tmp_path / "out", "--memory", mode), tmp_path / "h") == 0
    assert len(set(built["homes"])) == 1 and built["reflections"] is reflections
    capsys.readouterr()
    # another memory mode on the same --out is another experiment: refused
    other = "fresh"
    assert run_cli(_hotpot_argv(tmp_path / "out", "--memory", other), tmp_path / "h") == 2
    assert "memory" in capsys.readouterr().err


def test_hotpotqa_resumes_and_writes_a_report(tmp_path, capsys, monkeypatch):
    _connect_runner(monkeypatch, {})
    assert run_cli(_hotpot_argv(tmp_path / "out", "--json"), tmp_path / "h") == 0
    capsys.readouterr()
    # the same --out: nothing is answered again
    monkeypatch.setattr(hotpotqa_agent, "default_runner", None)
    argv = _hotpot_argv(tmp_path / "out", "--report", str(tmp_path / "report"))
    assert run_cli(argv, tmp_path / "h") == 0
    table = capsys.readouterr().out
    assert "EM: 0.667" in table and "calls: 6" in table and "trials run: 1" in table
    assert (tmp_path / "report" / "index.html").is_file()


def test_hotpotqa_bad_input(tmp_path, capsys):
    assert run_cli(["eval", "hotpotqa", "--file", str(tmp_path / "x.json")], tmp_path) == 2
    assert "does not exist" in capsys.readouterr().err
    argv = ["eval", "hotpotqa", "--file", str(DEV60), "--max-retries", "-1"]
    assert run_cli(argv, tmp_path) == 2
    argv = ["eval", "hotpotqa", "--file", str(DEV60), "--max-tool-steps", "51"]
    assert run_cli(argv, tmp_path) == 2
    assert "--max-tool-steps must be between 0 and 50" in capsys.readouterr().err
    argv = ["eval", "hotpotqa", "--file", str(DEV60), "--memory", "off", "--verdict", "gold"]
    assert run_cli(argv, tmp_path) == 2
    assert "--verdict gold relabels what a run taught memory" in capsys.readouterr().err


def test_other_benchmarks_share_the_eval_command_in_any_order():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command")
    eval_cli.eval_subparsers(sub).add_parser("miniwob").set_defaults(func=lambda a: 7)
    eval_cli.register(sub)
    args = parser.parse_args(["eval", "miniwob"])
    assert args.func(args) == 7
    assert (
        parser.parse_args(["eval", "webarena", "--config", "c", "--predictions", "p"]).json is False
    )
    with pytest.raises(SystemExit):
        parser.parse_args(["eval"])


def test_hotpotqa_settings_resolve_tool_steps_like_a_run(tmp_path):
    from evals.hotpotqa.single import HotpotSettings

    def steps(**kw) -> int | None:
        return HotpotSettings(file=DEV60, out=tmp_path, **kw).max_tool_steps

    assert steps(model="local:smollm2-135m") == 0 and steps() == 0 and steps(model="fake:m") == 3
    assert steps(max_tool_steps=5) == 5
