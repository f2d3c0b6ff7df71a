"""ASI's check on real chromium and MiniWoB++: a workflow induced from an oracle's successful
episode is replayed on the seed it was learned on and admitted; the same workflow aimed at a
button the page does not have fails its replay and is not admitted; an arm that admits
verified workflows only retrieves the first. On login-user the recorded steps name each field by
its label, which the workflow's steps leave out."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from core.web_context import WebAgentContext
from evals.awm.miniwob import episode_trajectory
from evals.awm.verify import verify_learned
from evals.common.resources import WorkerResources
from evals.miniwob.harness import website_of
from evals.miniwob.jobs import play
from evals.miniwob.oracle import OraclePolicy
from memory.agent_memory import AgentMemory
from memory.stores.project_store import open_project_store
from memory.workflows.online import rule_workflows

pytestmark = pytest.mark.integration
pytest.importorskip("miniwob", reason="MiniWoB++ pages come from pip install miniwob==1.1.0")
SEED = 5


@pytest.mark.parametrize("family", ["click-button", "login-user"])
def test_a_workflow_is_admitted_only_after_its_replay_succeeds(tmp_path: Path, family) -> None:
    resources = WorkerResources()
    try:
        episode = resources.run(play(resources, family, SEED, OraclePolicy(family)))
        assert episode.raw_reward >= 1.0, episode.reason  # the oracle solves its own seed
        run = episode_trajectory(episode)
        if family == "login-user":  # the case the label broke: the record names the field
            assert "label: 'Username'" in run.steps[0].action, run.steps[0].action
        good = rule_workflows([run])[0]
        broken = replace(good, name=good.name + "_broken", steps=_aimed_elsewhere(good.steps))
        broken.provenance = replace(good.provenance)
        ctx = WebAgentContext(home=str(tmp_path), embedding_model="hashing:256", max_steps=5)
        site = website_of(family)
        with open_project_store(tmp_path, "hashing:256", models=ctx.models) as store:
            memory = AgentMemory(store)
            memory.record_trajectory(run)
            memory.put_workflows(site, [good, broken])
        outcome = verify_learned(resources, ctx, family, SEED, run.id)
    finally:
        resources.close()
    assert outcome["replayed"] == 2 and outcome["names"] == [good.name]
    with open_project_store(tmp_path, "hashing:256", models=ctx.models) as store:
        memory = AgentMemory(store, min_relevance=0.0)
        stored = {w.name: w.provenance.verification for w in memory.workflows(site)}
        assert stored[good.name]["passed"] is True
        assert stored[good.name]["where"] == f"miniwob/{family}#seed{SEED}"
        assert stored[broken.name]["passed"] is False
        admitted = memory.relevant_workflows(run.task, 3, website=site, verified_only=True)
        assert [w.name for w in admitted] == [good.name]
        assert len(memory.relevant_workflows(run.task, 3, website=site)) == 2


def _aimed_elsewhere(steps: list[str]) -> list[str]:
    """The steps with each click aimed at a button name no page of this family shows."""
    return [s.replace("# button '", "# button 'nowhere ") if "button" in s else s for s in steps]
